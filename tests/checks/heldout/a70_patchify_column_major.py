META = {"exercise": "09.patchify", "cause": "patches listed column by column (permute puts W/p before H/p) instead of row-major",
        "keywords": [r"row", r"column", r"order", r"permut"]}


def patchify(images, patch_size):
    B, C, H, W = images.shape
    p = patch_size
    x = images.reshape(B, C, H // p, p, W // p, p).permute(0, 4, 2, 1, 3, 5)
    return x.reshape(B, -1, C * p * p)
