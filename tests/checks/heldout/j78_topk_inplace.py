META = {"exercise": "07b.top_k_filter",
        "cause": "writes -inf into the caller's logits in place and returns them",
        "keywords": [r"in[- ]?place", r"modif", r"caller", r"unchanged|changed"]}


def top_k_filter(logits, k):
    k = min(k, logits.size(-1))
    kth = torch.topk(logits, k, dim=-1).values[..., -1:]
    logits[logits < kth] = float("-inf")
    return logits
