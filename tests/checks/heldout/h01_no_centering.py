META = {"exercise": "00.pairwise_sq_dists",
        "cause": "the expansion |a|^2+|b|^2-2ab is used without first moving the points near the origin, so float32 cancellation ruins distances far from 0",
        "keywords": [r"far from|origin|cancel|centr|center|shift|mean|precision|1000"]}


def pairwise_sq_dists(a, b):
    sq_a = (a * a).sum(-1)[..., :, None]
    sq_b = (b * b).sum(-1)[..., None, :]
    return (sq_a + sq_b - 2 * a @ b.transpose(-2, -1)).clamp_min(0)
