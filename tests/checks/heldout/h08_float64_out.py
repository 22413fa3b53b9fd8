META = {"exercise": "00.pairwise_sq_dists",
        "cause": "computes in float64 for accuracy and returns float64 for float32 inputs instead of the inputs' dtype",
        "keywords": [r"dtype|float64|double|float32|precision of the input"]}


def pairwise_sq_dists(a, b):
    a, b = a.double(), b.double()
    sq_a = (a * a).sum(-1)[..., :, None]
    sq_b = (b * b).sum(-1)[..., None, :]
    return (sq_a + sq_b - 2 * a @ b.transpose(-2, -1)).clamp_min(0)
