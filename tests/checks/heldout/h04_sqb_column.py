META = {"exercise": "00.pairwise_sq_dists",
        "cause": "|b_j|^2 is added as a column ([..., :, None]) like |a_i|^2 instead of as a row, so it is indexed by i, not j",
        "keywords": [r"row|column|\[\.\.\., ?None, ?:\]|None|broadcast|\|b\|\^?2|sq_b|norm of b"]}


def pairwise_sq_dists(a, b):
    centre = b.mean(dim=-2, keepdim=True)
    a, b = a - centre, b - centre
    sq_a = (a * a).sum(-1)[..., :, None]
    sq_b = (b * b).sum(-1)[..., :, None]
    return (sq_a + sq_b - 2 * a @ b.transpose(-2, -1)).clamp_min(0)
