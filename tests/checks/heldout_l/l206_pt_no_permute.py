META = {'exercise': '09.patchify',
        'cause': 'reshapes without the permute: tokens are cut from rows of pixels, not square patches',
        'keywords': [r'permute', r'rows of pixels', r'square', r'reshape'],
        'kind': 'math',
        'single_edit': True}


def patchify(images, patch_size):
    B, C, H, W = images.shape
    p = patch_size
    gh, gw = H // p, W // p
    x = images.reshape(B, C, gh, p, gw, p)
    return x.reshape(B, gh * gw, C * p * p)
