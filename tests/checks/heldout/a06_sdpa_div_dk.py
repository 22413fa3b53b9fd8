META = {"exercise": "02.scaled_dot_product_attention", "cause": "divides by d_k instead of sqrt(d_k)",
        "keywords": [r"sqrt", r"√", r"scal", r"d_k"]}


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / q.size(-1)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(dim=-1)
    return weights @ v, weights
