META = {"exercise": "02.scaled_dot_product_attention", "cause": "scales by sqrt(q.shape[1]) instead of sqrt of the last dimension d_k: right for a 2-D (T, d_k) input, wrong once batch or head dimensions are in front", "keywords": [r"d_k", r"sqrt", r"scal", r"size\(-1\)|shape\[-1\]", r"last dim"]}


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
