META = {'exercise': '07b.top_k_filter',
        'cause': 'k is not capped at vocab_size: torch.topk raises for k > vocab_size',
        'keywords': [r'vocab_size', r'k ?>=? ?vocab', r'larger than', r'min\(k', r'too large|out of range'],
        'kind': 'math',
        'single_edit': True}


def top_k_filter(logits, k):
    kth = torch.topk(logits, k, dim=-1).values[..., -1:]
    return logits.masked_fill(logits < kth, float("-inf"))
