META = {"exercise": "02.attention_backward", "correct": True,
        "source": "mask with torch.where and finfo(dtype).min (HF-style large negative), softmax backward via Jacobian-free vjp, mT"}


def attention_backward(q, k, v, grad_out, mask=None):
    d_k = q.shape[-1]
    q_scaled = q / math.sqrt(d_k)
    scores = q_scaled @ k.mT
    if mask is not None:
        scores = torch.where(mask, scores, torch.finfo(scores.dtype).min)
    w = scores.softmax(-1)
    grad_v = w.mT @ grad_out
    gw = grad_out @ v.mT
    gs = w * gw - w * (w * gw).sum(-1, keepdim=True)
    grad_q = (gs @ k) / math.sqrt(d_k)
    grad_k = gs.mT @ q_scaled
    return grad_q, grad_k, grad_v
