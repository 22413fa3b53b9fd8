META = {"exercise": "00.pairwise_sq_dists",
        "cause": "the centring is done in place (a -= centre, b -= centre), which modifies the caller's input tensors",
        "keywords": [r"in[- ]?place|modif|mutat|sub_|-=|caller|input (was|is) changed|overwr"]}


def pairwise_sq_dists(a, b):
    centre = b.mean(dim=-2, keepdim=True)
    a -= centre
    b -= centre
    sq_a = (a * a).sum(-1)[..., :, None]
    sq_b = (b * b).sum(-1)[..., None, :]
    return (sq_a + sq_b - 2 * a @ b.transpose(-2, -1)).clamp_min(0)
