META = {'exercise': '09.patchify',
        'correct': True,
        'source': 'Tensor.unfold twice (not F.unfold), then permute to (B, gh, gw, C, p, p)'}


def patchify(images, patch_size):
    p = patch_size
    B, C = images.shape[:2]
    x = images.unfold(2, p, p).unfold(3, p, p)
    return x.permute(0, 2, 3, 1, 4, 5).reshape(B, -1, C * p * p)
