META = {"exercise": "02.scaled_dot_product_attention",
        "cause": "applies the mask after the softmax (weights * mask) without renormalizing, so masked rows no longer sum to 1 (shows only with a mask)",
        "keywords": [r"before the softmax", r"after the softmax", r"sum to 1", r"renormal", r"-inf|−∞|infinity"]}


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    weights = scores.softmax(dim=-1)
    if mask is not None:
        weights = weights * mask
    return weights @ v, weights
