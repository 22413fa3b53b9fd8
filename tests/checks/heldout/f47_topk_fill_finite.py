META = {"exercise": "07b.top_k_filter",
        "cause": "fills with torch.finfo(dtype).min, a finite number, instead of float('-inf'): the text asks for -inf, and a row that already holds a -inf gets a removed logit above it",
        "keywords": [r"-inf|minus infinity|negative infinity|infinite", r"finite|finfo|1e"]}


def top_k_filter(logits, k):
    k = min(k, logits.size(-1))
    kth = torch.topk(logits, k, dim=-1).values[..., -1:]
    return logits.masked_fill(logits < kth, torch.finfo(logits.dtype).min)
