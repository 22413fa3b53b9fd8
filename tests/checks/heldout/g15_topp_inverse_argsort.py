META = {"exercise": "07b.top_p_filter", "correct": True,
        "source": "argsort, gather, and the inverse permutation (argsort of the argsort) to unsort with gather"}


def top_p_filter(logits, p):
    order = logits.argsort(dim=-1, descending=True)
    sorted_logits = logits.gather(-1, order)
    probs = sorted_logits.softmax(-1)
    keep = torch.cat([torch.ones_like(probs[..., :1], dtype=torch.bool),
                      probs.cumsum(-1)[..., :-1] < p], dim=-1)
    filtered = torch.where(keep, sorted_logits, torch.full_like(sorted_logits, float("-inf")))
    inverse = order.argsort(dim=-1)
    return filtered.gather(-1, inverse)
