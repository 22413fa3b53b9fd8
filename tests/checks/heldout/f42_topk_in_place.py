META = {"exercise": "07b.top_k_filter",
        "cause": "writes -inf into logits in place (logits[mask] = -inf) and returns them: the caller's logits are changed",
        "keywords": [r"in.?place", r"chang|modif|overwr|mutat", r"caller|input"]}


def top_k_filter(logits, k):
    k = min(k, logits.size(-1))
    kth = torch.topk(logits, k, dim=-1).values[..., -1:]
    logits[logits < kth] = float("-inf")
    return logits
