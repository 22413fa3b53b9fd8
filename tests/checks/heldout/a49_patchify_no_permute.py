META = {"exercise": "09.patchify", "cause": "reshapes the image straight to (B, N, C*p*p) without permuting, so patches mix pixels from different places",
        "keywords": [r"permut", r"order", r"row-major", r"patch", r"transpose"]}


def patchify(images, patch_size):
    B, C, H, W = images.shape
    N = (H // patch_size) * (W // patch_size)
    return images.reshape(B, N, C * patch_size * patch_size)
