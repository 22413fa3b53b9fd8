META = {'exercise': '01.dot_product_attention',
        'cause': 'x.T reverses all dimensions of a batched x instead of swapping the last two',
        'keywords': [r'\.T\b', r'transpose', r'last two'],
        'kind': 'math',
        'single_edit': True}


def dot_product_attention(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    scores = x @ x.T
    weights = torch.softmax(scores, dim=-1)
    z = weights @ x
    return z, weights
