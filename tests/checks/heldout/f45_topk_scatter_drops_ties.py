META = {"exercise": "07b.top_k_filter",
        "cause": "scatters exactly the k top indices into a -inf tensor: logits tied with the k-th largest are removed though the text says they stay",
        "keywords": [r"tie"]}


def top_k_filter(logits, k):
    k = min(k, logits.size(-1))
    values, indices = torch.topk(logits, k, dim=-1)
    return torch.full_like(logits, float("-inf")).scatter(-1, indices, values)
