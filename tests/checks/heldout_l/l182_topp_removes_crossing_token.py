META = {'exercise': '07b.top_p_filter',
        'cause': 'uses the cumulative sum including the token itself: the token that carries the total past p is removed',
        'keywords': [r'cross', r'past p', r'includ', r'before (it|the token)', r'itself', r'most likely token'],
        'kind': 'math',
        'single_edit': True}


def top_p_filter(logits, p):
    sorted_logits, indices = logits.sort(dim=-1, descending=True)
    probs = sorted_logits.softmax(dim=-1)
    before = probs.cumsum(dim=-1)
    filtered = sorted_logits.masked_fill(before >= p, float("-inf"))
    return torch.empty_like(logits).scatter(-1, indices, filtered)
