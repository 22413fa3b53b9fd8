META = {"exercise": "09.patchify",
        "cause": "flattens each patch in (p, p, C) order, channels last, instead of (C, p, p)",
        "keywords": [r"\(C, ?p, ?p\)", r"\(p, ?p, ?C\)", r"channel"]}


def patchify(images, patch_size):
    B, C, H, W = images.shape
    p = patch_size
    x = images.reshape(B, C, H // p, p, W // p, p)
    return x.permute(0, 2, 4, 3, 5, 1).reshape(B, (H // p) * (W // p), C * p * p)
