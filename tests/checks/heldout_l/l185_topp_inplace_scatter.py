META = {'exercise': '07b.top_p_filter',
        'cause': "scatters into logits in place: the caller's logits are changed",
        'keywords': [r'in[- ]?place', r'mutat', r'(chang|modif|overwr|alter)\w*\W+(\w+\W+){0,4}(input|argument|caller|given)', r'(input|argument|caller)\w*\W+(\w+\W+){0,4}(chang|modif|overwr|alter)'],
        'kind': 'mode/state',
        'single_edit': True}


def top_p_filter(logits, p):
    sorted_logits, indices = logits.sort(dim=-1, descending=True)
    probs = sorted_logits.softmax(dim=-1)
    before = probs.cumsum(dim=-1) - probs
    filtered = sorted_logits.masked_fill(before >= p, float("-inf"))
    return logits.scatter_(-1, indices, filtered)
