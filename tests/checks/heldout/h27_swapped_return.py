META = {"exercise": "02.attention_backward",
        "cause": "returns the gradients in the wrong order, (grad_k, grad_q, grad_v) instead of (grad_q, grad_k, grad_v)",
        "keywords": [r"order|swap|grad_q.*grad_k|grad_k.*grad_q|first|second|exchang"]}


def attention_backward(q, k, v, grad_out, mask=None):
    d_k = q.size(-1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(dim=-1)
    grad_v = weights.transpose(-2, -1) @ grad_out
    grad_w = grad_out @ v.transpose(-2, -1)
    grad_s = weights * (grad_w - (grad_w * weights).sum(-1, keepdim=True)) / math.sqrt(d_k)
    return grad_s.transpose(-2, -1) @ q, grad_s @ k, grad_v
