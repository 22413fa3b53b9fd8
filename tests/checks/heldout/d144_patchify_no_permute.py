META = {"exercise": "09.patchify",
        "cause": "reshapes (B, C, H, W) straight to (B, N, C*p*p) without the permute, so each 'patch' is a run of pixel rows, not a p x p square",
        "keywords": [r"permute", r"rows of pixels|square"]}


def patchify(images, patch_size):
    B, C, H, W = images.shape
    p = patch_size
    return images.reshape(B, (H // p) * (W // p), C * p * p)
