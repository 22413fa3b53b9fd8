META = {'exercise': '07b.top_k_filter',
        'cause': 'takes sorted[..., k] as the threshold: that is the (k+1)-th largest, so k + 1 logits are kept',
        'keywords': [r'k ?\+ ?1', r'off[- ]by[- ]one', r'k-?th', r'index k', r'one (logit )?too many'],
        'kind': 'math',
        'single_edit': False}


def top_k_filter(logits, k):
    if k >= logits.size(-1):
        return logits.clone()
    sorted_logits = logits.sort(dim=-1, descending=True).values
    threshold = sorted_logits[..., k:k + 1]
    return torch.where(logits < threshold, torch.full_like(logits, float("-inf")), logits)
