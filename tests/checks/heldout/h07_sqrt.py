META = {"exercise": "00.pairwise_sq_dists",
        "cause": "returns the distances (square root taken, like cdist) instead of the squared distances",
        "keywords": [r"sqrt|square ?root|squared|not squared|cdist|\*\* ?2|norm"]}


def pairwise_sq_dists(a, b):
    centre = b.mean(dim=-2, keepdim=True)
    a, b = a - centre, b - centre
    sq_a = (a * a).sum(-1)[..., :, None]
    sq_b = (b * b).sum(-1)[..., None, :]
    return (sq_a + sq_b - 2 * a @ b.transpose(-2, -1)).clamp_min(0).sqrt()
