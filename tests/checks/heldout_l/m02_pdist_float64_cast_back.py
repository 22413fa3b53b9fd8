META = {'exercise': '00.pairwise_sq_dists',
        'correct': True,
        'source': "expansion with a shift, computed in float64 and cast back to the inputs' dtype"}


def pairwise_sq_dists(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    dtype = a.dtype
    a, b = a.double(), b.double()
    c = torch.cat([a, b], dim=-2).mean(dim=-2, keepdim=True)
    a, b = a - c, b - c
    d = a.square().sum(-1).unsqueeze(-1) + b.square().sum(-1).unsqueeze(-2) - 2 * a @ b.mT
    return d.clamp(min=0).to(dtype)
