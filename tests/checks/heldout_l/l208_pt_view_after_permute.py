META = {'exercise': '09.patchify',
        'cause': 'view after the permute: the permuted tensor is not contiguous, so view raises',
        'keywords': [r'contiguous', r'view', r'reshape'],
        'kind': 'math',
        'single_edit': True}


def patchify(images, patch_size):
    B, C, H, W = images.shape
    p = patch_size
    gh, gw = H // p, W // p
    x = images.reshape(B, C, gh, p, gw, p).permute(0, 2, 4, 1, 3, 5)
    return x.view(B, gh * gw, C * p * p)
