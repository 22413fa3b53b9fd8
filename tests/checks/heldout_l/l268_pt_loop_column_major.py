META = {'exercise': '09.patchify',
        'cause': 'slices the patches in a loop with the column index outside: patches come column by column',
        'keywords': [r'row[- ]major', r'column', r'row by row', r'(wrong|another|reversed|swapped) order', r'order (is |was )?(wrong|swapped|reversed)', r'out of order', r'transpos'],
        'kind': 'math',
        'single_edit': False}


def patchify(images, patch_size):
    p = patch_size
    B, C, H, W = images.shape
    tokens = []
    for j in range(W // p):
        for i in range(H // p):
            tokens.append(images[:, :, i * p:(i + 1) * p, j * p:(j + 1) * p].reshape(B, -1))
    return torch.stack(tokens, dim=1)
