META = {'exercise': '07b.top_p_filter',
        'correct': True,
        'source': 'removal mask computed in sorted order, mapped back with argsort of the sort indices and gather'}


def top_p_filter(logits, p):
    sorted_logits, order = torch.sort(logits, dim=-1, descending=True)
    probs = torch.softmax(sorted_logits, dim=-1)
    mass_before = torch.cumsum(probs, dim=-1) - probs
    remove_sorted = mass_before >= p
    remove = remove_sorted.gather(-1, order.argsort(dim=-1))
    return torch.where(remove, torch.full_like(logits, float("-inf")), logits)
