META = {"exercise": "02.scaled_dot_product_attention", "cause": "masked scores are set to 0 instead of -inf, so blocked keys still get weight",
        "keywords": [r"-inf", r"mask", r"blocked", r"masked_fill"]}


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, 0.0)
    weights = scores.softmax(dim=-1)
    return weights @ v, weights
