META = {'exercise': '07b.top_p_filter',
        'cause': 'removes a token only when the mass before it exceeds p (>), keeping one token too many when it equals p',
        'keywords': [r'>=', r'reach', r'exactly p', r'strict', r'equal'],
        'kind': 'math',
        'single_edit': True}


def top_p_filter(logits, p):
    sorted_logits, indices = logits.sort(dim=-1, descending=True)
    probs = sorted_logits.softmax(dim=-1)
    before = probs.cumsum(dim=-1) - probs
    filtered = sorted_logits.masked_fill(before > p, float("-inf"))
    return torch.empty_like(logits).scatter(-1, indices, filtered)
