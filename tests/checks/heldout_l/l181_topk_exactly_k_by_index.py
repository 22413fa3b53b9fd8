META = {'exercise': '07b.top_k_filter',
        'cause': 'keeps exactly the k indices topk returns: a tie with the k-th is removed',
        'keywords': [r'tie', r'k-?th', r'>=', r'exactly k'],
        'kind': 'math',
        'single_edit': False}


def top_k_filter(logits, k):
    k = min(k, logits.size(-1))
    idx = torch.topk(logits, k, dim=-1).indices
    keep = torch.zeros_like(logits, dtype=torch.bool).scatter(-1, idx, True)
    return logits.masked_fill(~keep, float("-inf"))
