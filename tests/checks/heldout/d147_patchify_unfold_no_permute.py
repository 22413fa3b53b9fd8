META = {"exercise": "09.patchify",
        "cause": "uses Tensor.unfold twice ((B, C, H/p, W/p, p, p)) then reshapes without moving C after the patch grid, so channels and patches are mixed (right only for C = 1)",
        "keywords": [r"permute", r"channel", r"\(C, ?p, ?p\)"]}


def patchify(images, patch_size):
    B, C, H, W = images.shape
    p = patch_size
    x = images.unfold(2, p, p).unfold(3, p, p)  # (B, C, H/p, W/p, p, p)
    return x.reshape(B, -1, C * p * p)
