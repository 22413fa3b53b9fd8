META = {"exercise": "09.patchify",
        "cause": "numbers the patches column by column (permute(0, 4, 2, 1, 3, 5): W/p before H/p) instead of row by row",
        "keywords": [r"row.major|row by row", r"column", r"permute"]}


def patchify(images, patch_size):
    B, C, H, W = images.shape
    p = patch_size
    x = images.reshape(B, C, H // p, p, W // p, p)
    x = x.permute(0, 4, 2, 1, 3, 5)  # (B, W/p, H/p, C, p, p)
    return x.reshape(B, (H // p) * (W // p), C * p * p)
