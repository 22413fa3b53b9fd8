META = {"exercise": "02.scaled_dot_product_attention",
        "cause": "computes the softmax in float32 (scores.float()) and casts back, so float64 inputs lose precision (weights and out only float32-accurate)",
        "keywords": [r"float64", r"float32", r"precision", r"dtype", r"double"]}


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores.float(), dim=-1).to(q.dtype)  # softmax in float32 for stability
    return weights @ v, weights
