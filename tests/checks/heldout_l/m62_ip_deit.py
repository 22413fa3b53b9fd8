META = {'exercise': '09.interpolate_pos_embed',
        'correct': True,
        'source': 'DeiT main.py checkpoint pos_embed interpolation (extra tokens kept, pos_tokens reshaped, permuted, bicubic, flatten(1, 2), cat), for rectangular grids'}


def interpolate_pos_embed(pos_embed_checkpoint, old_grid, new_grid):
    embedding_size = pos_embed_checkpoint.shape[-1]
    num_extra_tokens = 1
    extra_tokens = pos_embed_checkpoint[:, :num_extra_tokens]
    pos_tokens = pos_embed_checkpoint[:, num_extra_tokens:]
    pos_tokens = pos_tokens.reshape(-1, old_grid[0], old_grid[1], embedding_size).permute(0, 3, 1, 2)
    pos_tokens = torch.nn.functional.interpolate(
        pos_tokens, size=tuple(new_grid), mode="bicubic", align_corners=False)
    pos_tokens = pos_tokens.permute(0, 2, 3, 1).flatten(1, 2)
    return torch.cat((extra_tokens, pos_tokens), dim=1)
