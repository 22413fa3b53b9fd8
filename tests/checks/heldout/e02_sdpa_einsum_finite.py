META = {"exercise": "02.scaled_dot_product_attention", "correct": True,
        "source": "einsum form with torch.finfo(dtype).min as the fill (the notebook says a large finite negative is accepted); identical except on rows with no allowed key"}


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = torch.einsum("...qd,...kd->...qk", q, k) * q.size(-1) ** -0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
    weights = torch.softmax(scores, dim=-1)
    return torch.einsum("...qk,...kd->...qd", weights, v), weights
