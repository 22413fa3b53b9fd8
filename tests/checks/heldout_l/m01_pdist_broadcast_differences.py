META = {'exercise': '00.pairwise_sq_dists',
        'correct': True,
        'source': "the broadcast-differences form the notebook's hint 1 mentions"}


def pairwise_sq_dists(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    diff = a[..., :, None, :] - b[..., None, :, :]
    return (diff * diff).sum(-1)
