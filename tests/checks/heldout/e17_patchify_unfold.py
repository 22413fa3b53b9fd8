META = {"exercise": "09.patchify", "correct": True,
        "source": "Tensor.unfold along H then W (not F.unfold), then permute the channel after the patch grid, as in several ViT-from-scratch tutorials"}


def patchify(images, patch_size):
    B, C, H, W = images.shape
    p = patch_size
    x = images.unfold(2, p, p).unfold(3, p, p)  # (B, C, H/p, W/p, p, p)
    x = x.permute(0, 2, 3, 1, 4, 5).contiguous()  # (B, H/p, W/p, C, p, p)
    return x.view(B, -1, C * p * p)
