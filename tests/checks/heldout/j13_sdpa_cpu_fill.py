META = {"exercise": "02.scaled_dot_product_attention",
        "cause": "builds the -inf fill tensor with torch.full without device=, so it lives on the CPU and fails for inputs on another device",
        "keywords": [r"device", r"cpu", r"cuda", r"meta"]}


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        neg = torch.full(scores.shape, float("-inf"), dtype=scores.dtype)
        scores = torch.where(mask, scores, neg)
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
