META = {'exercise': '09.patchify',
        'cause': "flattens each patch in (p, p, C) order, as MAE's patchify does, instead of (C, p, p)",
        'keywords': [r'\(C, ?p, ?p\)', r'\(p, ?p, ?C\)', r'channel', r'(wrong|another|reversed|swapped) order', r'order (is |was )?(wrong|swapped|reversed)', r'out of order', r'MAE'],
        'kind': 'math',
        'single_edit': True}


def patchify(images, patch_size):
    B, C, H, W = images.shape
    p = patch_size
    gh, gw = H // p, W // p
    x = images.reshape(B, C, gh, p, gw, p).permute(0, 2, 4, 3, 5, 1)
    return x.reshape(B, gh * gw, C * p * p)
