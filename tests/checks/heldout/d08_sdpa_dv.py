META = {"exercise": "02.scaled_dot_product_attention",
        "cause": "divides by sqrt(v.size(-1)) (d_v) instead of sqrt(d_k); shows only when d_v != d_k",
        "keywords": [r"d_v", r"v\.size", r"value (size|dim)", r"size of the values"]}


def scaled_dot_product_attention(q, k, v, mask=None):
    d = v.size(-1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(dim=-1)
    return weights @ v, weights
