META = {"exercise": "09.interpolate_pos_embed",
        "cause": "casts to float32 for F.interpolate (as timm does) and returns float32, losing a float64 input's dtype and precision",
        "keywords": [r"dtype|float64|float32|double|precision"]}


def interpolate_pos_embed(pos_embed, old_grid, new_grid):
    if tuple(new_grid) == tuple(old_grid):
        return pos_embed
    (old_h, old_w), (new_h, new_w) = old_grid, new_grid
    d = pos_embed.shape[-1]
    pos_embed = pos_embed.float()
    cls, rows = pos_embed[:, :1], pos_embed[:, 1:]
    grid = rows.reshape(1, old_h, old_w, d).permute(0, 3, 1, 2)
    grid = F.interpolate(grid, size=(new_h, new_w), mode="bicubic", align_corners=False)
    rows = grid.permute(0, 2, 3, 1).reshape(1, new_h * new_w, d)
    return torch.cat([cls, rows], dim=1)
