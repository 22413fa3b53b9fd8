META = {"exercise": "07b.top_k_filter",
        "cause": "sets the removed logits to 0 instead of -inf: they keep a probability after the softmax (and a 0 can be larger than the kept ones)",
        "keywords": [r"-inf|minus infinity|negative infinity", r"\b0\b|zero"]}


def top_k_filter(logits, k):
    k = min(k, logits.size(-1))
    kth = torch.topk(logits, k, dim=-1).values[..., -1:]
    return logits.masked_fill(logits < kth, 0.0)
