META = {'exercise': '07b.top_k_filter',
        'cause': "sets the removed logits to -inf in place: the caller's logits are changed",
        'keywords': [r'in[- ]?place', r'mutat', r'(chang|modif|overwr|alter)\w*\W+(\w+\W+){0,4}(input|argument|caller|given)', r'(input|argument|caller)\w*\W+(\w+\W+){0,4}(chang|modif|overwr|alter)'],
        'kind': 'mode/state',
        'single_edit': False}


def top_k_filter(logits, k):
    k = min(k, logits.size(-1))
    kth = torch.topk(logits, k, dim=-1).values[..., -1:]
    logits[logits < kth] = float("-inf")
    return logits
