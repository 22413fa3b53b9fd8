META = {"exercise": "00.pairwise_sq_dists", "correct": True,
        "source": "einsum Gram-matrix form (as in sklearn's euclidean_distances), centred on a's mean, clamp(min=0)"}


def pairwise_sq_dists(a, b):
    c = a.mean(dim=-2, keepdim=True)
    a0, b0 = a - c, b - c
    cross = torch.einsum("...nd,...md->...nm", a0, b0)
    na = torch.einsum("...nd,...nd->...n", a0, a0).unsqueeze(-1)
    nb = torch.einsum("...md,...md->...m", b0, b0).unsqueeze(-2)
    return torch.clamp(na - 2 * cross + nb, min=0)
