META = {"exercise": "09.patchify", "cause": "each patch flattened in (p, p, C) order instead of (C, p, p)",
        "keywords": [r"\(C, p, p\)", r"order", r"channel", r"flatten"]}


def patchify(images, patch_size):
    B, C, H, W = images.shape
    p = patch_size
    x = images.unfold(2, p, p).unfold(3, p, p)  # (B, C, H/p, W/p, p, p)
    x = x.permute(0, 2, 3, 4, 5, 1)  # (B, H/p, W/p, p, p, C)
    return x.reshape(B, -1, p * p * C)
