META = {"exercise": "09.patchify",
        "cause": "flattens each patch in (p, p, C) order (channels last, permute(0, 2, 4, 3, 5, 1)) instead of (C, p, p); same for one channel, wrong for C > 1",
        "keywords": [r"\(C, ?p, ?p\)", r"channel", r"permute"]}


def patchify(images, patch_size):
    B, C, H, W = images.shape
    p = patch_size
    x = images.reshape(B, C, H // p, p, W // p, p)
    x = x.permute(0, 2, 4, 3, 5, 1)  # (B, H/p, W/p, p, p, C)
    return x.reshape(B, -1, p * p * C)
