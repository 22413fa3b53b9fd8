META = {"exercise": "07b.top_k_filter",
        "cause": "one threshold for the whole batch (topk of the flattened logits): each row is not filtered on its own, some rows keep more or fewer than k",
        "keywords": [r"each row|per row|every row|its (own )?row|row.?wise", r"batch|flatten|whole tensor|global"]}


def top_k_filter(logits, k):
    flat = logits.reshape(-1)
    kth = torch.topk(flat, min(k, flat.numel())).values[-1]
    return logits.masked_fill(logits < kth, float("-inf"))
