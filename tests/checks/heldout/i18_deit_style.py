META = {"exercise": "09.interpolate_pos_embed", "correct": True,
        "source": "DeiT / MAE interpolate_pos_embed style (extra_tokens, flatten(2).transpose on the way back), generalised to rectangular grids; always interpolates"}


def interpolate_pos_embed(pos_embed, old_grid, new_grid):
    embedding_size = pos_embed.shape[-1]
    num_extra_tokens = 1
    extra_tokens = pos_embed[:, :num_extra_tokens]
    pos_tokens = pos_embed[:, num_extra_tokens:]
    pos_tokens = pos_tokens.reshape(-1, old_grid[0], old_grid[1], embedding_size).permute(0, 3, 1, 2)
    pos_tokens = torch.nn.functional.interpolate(
        pos_tokens, size=(new_grid[0], new_grid[1]), mode="bicubic", align_corners=False)
    pos_tokens = pos_tokens.flatten(2).transpose(1, 2)
    return torch.cat((extra_tokens, pos_tokens), dim=1)
