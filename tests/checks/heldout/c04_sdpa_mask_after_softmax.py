META = {"exercise": "02.scaled_dot_product_attention", "cause": "the mask is applied after the softmax by zeroing the blocked weights, without renormalizing, so masked rows no longer sum to 1", "keywords": [r"after (the )?softmax", r"before (the )?softmax", r"renormali[sz]", r"sum to 1", r"-inf|−∞|infinity"]}


def scaled_dot_product_attention(q, k, v, mask=None):
    d_k = q.size(-1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)   # (..., T_q, T_k)
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)          # blocked keys get weight 0
    out = weights @ v
    return out, weights
