META = {"exercise": "02.attention_backward",
        "cause": "the mask is ignored when the weights are recomputed, so blocked keys get weight and gradient",
        "keywords": [r"mask|blocked|-inf|masked_fill"]}


def attention_backward(q, k, v, grad_out, mask=None):
    d_k = q.size(-1)
    weights = (q @ k.transpose(-2, -1) / math.sqrt(d_k)).softmax(dim=-1)
    grad_v = weights.transpose(-2, -1) @ grad_out
    grad_w = grad_out @ v.transpose(-2, -1)
    grad_s = weights * (grad_w - (grad_w * weights).sum(-1, keepdim=True)) / math.sqrt(d_k)
    return grad_s @ k, grad_s.transpose(-2, -1) @ q, grad_v
