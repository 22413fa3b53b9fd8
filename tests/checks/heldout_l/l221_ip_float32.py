META = {'exercise': '09.interpolate_pos_embed',
        'cause': 'casts to float32 for the interpolation and never casts back: a float64 input comes back as float32',
        'keywords': [r'dtype', r'precision', r'double', r'\bkeeps? (its |the )?type', r'(returns?|returned|came back|comes back|gives?|made|built) (as |in )?float(16|32|64)', r'float(32|64) (instead|rather|output|result|for)'],
        'kind': 'device',
        'single_edit': True}


def interpolate_pos_embed(pos_embed, old_grid, new_grid):
    (old_h, old_w), (new_h, new_w) = old_grid, new_grid
    pos_embed = pos_embed.float()
    cls, rows = pos_embed[:, :1], pos_embed[:, 1:]
    d = rows.size(-1)
    grid = rows.reshape(1, old_h, old_w, d).permute(0, 3, 1, 2)
    grid = F.interpolate(grid, size=(new_h, new_w), mode="bicubic", align_corners=False)
    rows = grid.permute(0, 2, 3, 1).reshape(1, new_h * new_w, d)
    return torch.cat([cls, rows], dim=1)
