META = {"exercise": "09.patchify", "correct": True, "source": "Tensor.unfold twice (sliding windows with step p), then permute"}


def patchify(images, patch_size):
    B, C, H, W = images.shape
    p = patch_size
    x = images.unfold(2, p, p).unfold(3, p, p)  # (B, C, H/p, W/p, p, p)
    return x.permute(0, 2, 3, 1, 4, 5).reshape(B, -1, C * p * p)
