META = {'exercise': '09.interpolate_pos_embed',
        'correct': True,
        'source': "timm resample_abs_pos_embed (num_prefix_tokens, reshape, permute, F.interpolate, permute, reshape, cat), same-size shortcut, computed in the input's dtype"}


def interpolate_pos_embed(posemb, old_grid, new_grid, num_prefix_tokens=1, interpolation="bicubic", antialias=False):
    old_size, new_size = tuple(old_grid), tuple(new_grid)
    num_pos_tokens = posemb.shape[1]
    num_new_tokens = new_size[0] * new_size[1] + num_prefix_tokens
    if num_new_tokens == num_pos_tokens and new_size[0] == new_size[1] and old_size == new_size:
        return posemb
    if old_size == new_size:
        return posemb
    if num_prefix_tokens:
        posemb_prefix, posemb = posemb[:, :num_prefix_tokens], posemb[:, num_prefix_tokens:]
    else:
        posemb_prefix = None
    embed_dim = posemb.shape[-1]
    posemb = posemb.reshape(1, old_size[0], old_size[1], -1).permute(0, 3, 1, 2)
    posemb = F.interpolate(posemb, size=new_size, mode=interpolation, antialias=antialias, align_corners=False)
    posemb = posemb.permute(0, 2, 3, 1).reshape(1, -1, embed_dim)
    if posemb_prefix is not None:
        posemb = torch.cat([posemb_prefix, posemb], dim=1)
    return posemb
