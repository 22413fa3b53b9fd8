META = {"exercise": "09.interpolate_pos_embed", "correct": True,
        "source": "timm resample_abs_pos_embed adapted (num_prefix_tokens=1, no float32 cast), unflatten/movedim instead of reshape/permute"}


def interpolate_pos_embed(pos_embed, old_grid, new_grid):
    num_prefix_tokens = 1
    new_size, old_size = list(new_grid), list(old_grid)
    if new_size == old_size:
        return pos_embed
    prefix, posemb = pos_embed[:, :num_prefix_tokens], pos_embed[:, num_prefix_tokens:]
    posemb = posemb.unflatten(1, old_size).movedim(-1, 1)  # (1, d, H, W)
    posemb = F.interpolate(posemb, size=new_size, mode="bicubic", antialias=False, align_corners=False)
    posemb = posemb.movedim(1, -1).flatten(1, 2)
    return torch.cat([prefix, posemb], dim=1)
