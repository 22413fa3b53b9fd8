META = {"exercise": "02.scaled_dot_product_attention",
        "cause": "scales by sqrt of the value size v.size(-1) instead of d_k = q.size(-1)",
        "keywords": [r"d_?k", r"d_?v", r"value.{0,20}size", r"size.{0,20}value", r"scal"]}


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(v.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
