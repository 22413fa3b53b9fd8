META = {'exercise': '07b.top_p_filter',
        'cause': 'puts the values back with gather instead of scatter: the permutation is applied a second time',
        'keywords': [r'scatter', r'gather', r'unsort', r'back (at|in) (its|their) (own )?position', r'permut', r'(wrong|another|reversed|swapped) order', r'order (is |was )?(wrong|swapped|reversed)', r'out of order'],
        'kind': 'math',
        'single_edit': True}


def top_p_filter(logits, p):
    sorted_logits, indices = logits.sort(dim=-1, descending=True)
    probs = sorted_logits.softmax(dim=-1)
    before = probs.cumsum(dim=-1) - probs
    filtered = sorted_logits.masked_fill(before >= p, float("-inf"))
    return filtered.gather(-1, indices)
