META = {"exercise": "00.pairwise_sq_dists",
        "cause": "b is transposed with transpose(0, 1), which swaps the last two dims only for 2-D input and breaks with leading batch dims",
        "keywords": [r"transpose|leading|batch|dims?\b.*\(0, ?1\)|-2, ?-1|mT|3-?d|extra dim"]}


def pairwise_sq_dists(a, b):
    centre = b.mean(dim=-2, keepdim=True)
    a, b = a - centre, b - centre
    sq_a = (a * a).sum(-1)[..., :, None]
    sq_b = (b * b).sum(-1)[..., None, :]
    return (sq_a + sq_b - 2 * a @ b.transpose(0, 1)).clamp_min(0)
