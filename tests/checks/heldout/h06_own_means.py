META = {"exercise": "00.pairwise_sq_dists",
        "cause": "a and b are each centred on their own mean, which is not a common shift and changes the distances",
        "keywords": [r"same (shift|vector|centre|center|mean)|common|own mean|both|shift|cent(re|er)"]}


def pairwise_sq_dists(a, b):
    a = a - a.mean(dim=-2, keepdim=True)
    b = b - b.mean(dim=-2, keepdim=True)
    sq_a = (a * a).sum(-1)[..., :, None]
    sq_b = (b * b).sum(-1)[..., None, :]
    return (sq_a + sq_b - 2 * a @ b.transpose(-2, -1)).clamp_min(0)
