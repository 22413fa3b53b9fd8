META = {'exercise': '09.patchify',
        'correct': True,
        'source': "MAE-style einsum patchify adapted to (C, p, p) order: 'nchpwq->nhwcpq'"}


def patchify(imgs, patch_size):
    p = patch_size
    N, C, H, W = imgs.shape
    h, w = H // p, W // p
    x = imgs.reshape(N, C, h, p, w, p)
    x = torch.einsum("nchpwq->nhwcpq", x)
    return x.reshape(N, h * w, C * p * p)
