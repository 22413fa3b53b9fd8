META = {"exercise": "02.scaled_dot_product_attention",
        "cause": "fills -inf where the mask is True, treating True as blocked (PyTorch's nn.MultiheadAttention convention) instead of may attend",
        "keywords": [r"convention", r"flip", r"invert", r"true.{0,30}(block|may attend|allowed)", r"~mask|not mask|negat"]}


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
