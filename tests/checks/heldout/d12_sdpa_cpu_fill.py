META = {"exercise": "02.scaled_dot_product_attention",
        "cause": "builds the -inf fill tensor with torch.full(...) without device=, so with a mask on a non-CPU device torch.where mixes devices and raises (shows only with a mask on another device)",
        "keywords": [r"device", r"cpu", r"cuda", r"q\.device"]}


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        neg_inf = torch.full(scores.shape, float("-inf"), dtype=scores.dtype)
        scores = torch.where(mask, scores, neg_inf)
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
