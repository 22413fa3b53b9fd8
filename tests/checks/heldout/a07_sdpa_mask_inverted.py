META = {"exercise": "02.scaled_dot_product_attention", "cause": "uses nn.MultiheadAttention's convention: fills where mask is True",
        "keywords": [r"convention", r"True = may attend", r"invert", r"opposite", r"~mask", r"True.*(attend|allowed|block)"]}


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
    weights = scores.softmax(dim=-1)
    return weights @ v, weights
