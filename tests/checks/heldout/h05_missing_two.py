META = {"exercise": "00.pairwise_sq_dists",
        "cause": "the cross term is subtracted once instead of twice (missing the factor 2 in -2 a.b)",
        "keywords": [r"factor|2 ?\*|twice|-2|cross term"]}


def pairwise_sq_dists(a, b):
    centre = b.mean(dim=-2, keepdim=True)
    a, b = a - centre, b - centre
    sq_a = (a * a).sum(-1)[..., :, None]
    sq_b = (b * b).sum(-1)[..., None, :]
    return (sq_a + sq_b - a @ b.transpose(-2, -1)).clamp_min(0)
