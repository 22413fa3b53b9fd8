META = {"exercise": "07b.top_k_filter", "correct": True,
        "source": "the k-th largest as the (V - k + 1)-th smallest with torch.kthvalue; torch.where"}


def top_k_filter(logits, k):
    V = logits.size(-1)
    if k >= V:
        return logits.clone()
    kth = torch.kthvalue(logits, V - k + 1, dim=-1, keepdim=True).values
    return torch.where(logits >= kth, logits, torch.full_like(logits, float("-inf")))
