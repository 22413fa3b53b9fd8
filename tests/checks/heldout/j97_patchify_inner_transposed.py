META = {"exercise": "09.patchify",
        "cause": "permutes to (B, H/p, W/p, C, p_w, p_h), flattening each patch column by column instead of in (C, p, p) row order",
        "keywords": [r"\(C, ?p, ?p\)", r"permute", r"transpos", r"inside.{0,20}patch", r"flatten.{0,20}order"]}


def patchify(images, patch_size):
    B, C, H, W = images.shape
    p = patch_size
    x = images.reshape(B, C, H // p, p, W // p, p)
    return x.permute(0, 2, 4, 1, 5, 3).reshape(B, (H // p) * (W // p), C * p * p)
