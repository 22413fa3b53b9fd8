META = {'exercise': '09.interpolate_pos_embed',
        'cause': 'align_corners=True instead of False',
        'keywords': [r'align_corners'],
        'kind': 'math',
        'single_edit': True}


def interpolate_pos_embed(pos_embed, old_grid, new_grid):
    (old_h, old_w), (new_h, new_w) = old_grid, new_grid
    cls, rows = pos_embed[:, :1], pos_embed[:, 1:]
    d = rows.size(-1)
    grid = rows.reshape(1, old_h, old_w, d).permute(0, 3, 1, 2)
    grid = F.interpolate(grid, size=(new_h, new_w), mode="bicubic", align_corners=True)
    rows = grid.permute(0, 2, 3, 1).reshape(1, new_h * new_w, d)
    return torch.cat([cls, rows], dim=1)
