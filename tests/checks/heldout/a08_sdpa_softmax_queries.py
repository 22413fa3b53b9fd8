META = {"exercise": "02.scaled_dot_product_attention", "cause": "softmax over the queries (dim=-2) instead of the keys",
        "keywords": [r"dim", r"keys", r"rows? .*sum", r"sum to 1", r"queries"]}


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(dim=-2)
    return weights @ v, weights
