META = {'exercise': '09.interpolate_pos_embed',
        'cause': 'reshapes the rows straight to (1, d, h, w) without the permute: features of different patches are mixed',
        'keywords': [r'permute', r'reshape', r'mix', r'channels?'],
        'kind': 'math',
        'single_edit': True}


def interpolate_pos_embed(pos_embed, old_grid, new_grid):
    (old_h, old_w), (new_h, new_w) = old_grid, new_grid
    cls, rows = pos_embed[:, :1], pos_embed[:, 1:]
    d = rows.size(-1)
    grid = rows.reshape(1, d, old_h, old_w)
    grid = F.interpolate(grid, size=(new_h, new_w), mode="bicubic", align_corners=False)
    rows = grid.permute(0, 2, 3, 1).reshape(1, new_h * new_w, d)
    return torch.cat([cls, rows], dim=1)
