META = {"exercise": "09.patchify", "correct": True, "source": "Tensor.unfold on the two spatial axes (not F.unfold), then permute and flatten"}


def patchify(images, patch_size):
    p = patch_size
    B, C = images.shape[:2]
    # (B, C, H/p, W/p, p, p): windows along H, then along W
    tiles = images.unfold(2, p, p).unfold(3, p, p)
    tiles = tiles.permute(0, 2, 3, 1, 4, 5)           # (B, H/p, W/p, C, p, p)
    return tiles.flatten(3).flatten(1, 2)             # (B, N, C*p*p)
