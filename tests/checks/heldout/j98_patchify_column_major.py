META = {"exercise": "09.patchify",
        "cause": "orders the patches column by column (permute(0, 4, 2, ...)) instead of row by row",
        "keywords": [r"row.?major", r"column", r"row by row", r"patch order", r"order of (the )?patches"]}


def patchify(images, patch_size):
    B, C, H, W = images.shape
    p = patch_size
    x = images.reshape(B, C, H // p, p, W // p, p)
    return x.permute(0, 4, 2, 1, 3, 5).reshape(B, (H // p) * (W // p), C * p * p)
