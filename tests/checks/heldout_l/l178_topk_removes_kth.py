META = {'exercise': '07b.top_k_filter',
        'cause': 'removes logits <= the k-th largest: the k-th itself and its ties are removed',
        'keywords': [r'tie', r'k-?th', r'<=', r'>=', r'k ?- ?1', r'keeps? (only )?(fewer|k ?- ?1)'],
        'kind': 'math',
        'single_edit': True}


def top_k_filter(logits, k):
    k = min(k, logits.size(-1))
    kth = torch.topk(logits, k, dim=-1).values[..., -1:]
    return logits.masked_fill(logits <= kth, float("-inf"))
