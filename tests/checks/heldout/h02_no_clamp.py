META = {"exercise": "00.pairwise_sq_dists",
        "cause": "no clamp at 0: where two points coincide rounding leaves small negative squared distances",
        "keywords": [r"negative|clamp|< ?0|below (0|zero)|coincid|non-?neg"]}


def pairwise_sq_dists(a, b):
    centre = b.mean(dim=-2, keepdim=True)
    a, b = a - centre, b - centre
    sq_a = (a * a).sum(-1)[..., :, None]
    sq_b = (b * b).sum(-1)[..., None, :]
    return sq_a + sq_b - 2 * a @ b.transpose(-2, -1)
