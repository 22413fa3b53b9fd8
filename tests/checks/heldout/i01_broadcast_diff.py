META = {"exercise": "00.pairwise_sq_dists", "correct": True,
        "source": "broadcast differences (the (N, M, d) route from hint 1), scipy/sklearn-style direct formula, after a common shift"}


def pairwise_sq_dists(a, b):
    shift = a.mean(dim=-2, keepdim=True)
    diff = (a - shift)[..., :, None, :] - (b - shift)[..., None, :, :]  # (..., N, M, d)
    return diff.pow(2).sum(dim=-1)
