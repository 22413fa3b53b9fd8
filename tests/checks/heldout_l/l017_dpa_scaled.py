META = {'exercise': '01.dot_product_attention',
        'cause': 'divides the scores by sqrt(d): this exercise has no scaling',
        'keywords': [r'sqrt', r'scal', r'divid\w* by (the number of|all|every)'],
        'kind': 'math',
        'single_edit': True}


def dot_product_attention(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    scores = x @ x.transpose(-2, -1) / math.sqrt(x.size(-1))
    weights = torch.softmax(scores, dim=-1)
    z = weights @ x
    return z, weights
