META = {"exercise": "09.interpolate_pos_embed",
        "cause": 'on the way back the (1, d, new_h, new_w) grid is reshaped to rows without permuting the channels last',
        "keywords": [r"permute|reshape|channels?|back to rows|mix"]}


def interpolate_pos_embed(pos_embed, old_grid, new_grid):
    if tuple(new_grid) == tuple(old_grid):
        return pos_embed
    (old_h, old_w), (new_h, new_w) = old_grid, new_grid
    d = pos_embed.shape[-1]
    cls, rows = pos_embed[:, :1], pos_embed[:, 1:]
    grid = rows.reshape(1, old_h, old_w, d).permute(0, 3, 1, 2)
    grid = F.interpolate(grid, size=(new_h, new_w), mode="bicubic", align_corners=False)
    rows = grid.reshape(1, new_h * new_w, d)
    return torch.cat([cls, rows], dim=1)
