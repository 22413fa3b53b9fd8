META = {"exercise": "02.scaled_dot_product_attention",
        "cause": "uses nn.MultiheadAttention's convention: fills -inf where the mask is True (masked_fill(mask, -inf)) instead of where it is False",
        "keywords": [r"convention", r"True\s*=\s*(may attend|blocked)", r"invert", r"~\s*mask", r"opposite"]}


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))  # masked positions get -inf
    weights = scores.softmax(dim=-1)
    return weights @ v, weights
