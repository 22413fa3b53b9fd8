META = {"exercise": "09.interpolate_pos_embed",
        "cause": 'rows and columns are swapped: the grid is reshaped as (old_w, old_h) and resized to (new_w, new_h)',
        "keywords": [r"rows and columns|swap|transpos|\(h, ?w\)|height|width|rectang"]}


def interpolate_pos_embed(pos_embed, old_grid, new_grid):
    if tuple(new_grid) == tuple(old_grid):
        return pos_embed
    (old_h, old_w), (new_h, new_w) = old_grid, new_grid
    d = pos_embed.shape[-1]
    cls, rows = pos_embed[:, :1], pos_embed[:, 1:]
    grid = rows.reshape(1, old_w, old_h, d).permute(0, 3, 1, 2)
    grid = F.interpolate(grid, size=(new_w, new_h), mode="bicubic", align_corners=False)
    rows = grid.permute(0, 2, 3, 1).reshape(1, new_h * new_w, d)
    return torch.cat([cls, rows], dim=1)
