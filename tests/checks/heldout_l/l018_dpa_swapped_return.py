META = {'exercise': '01.dot_product_attention',
        'cause': 'returns (weights, z) instead of (z, weights)',
        'keywords': [r'(wrong|another|reversed|swapped) order', r'order (is |was )?(wrong|swapped|reversed)', r'out of order', r'swap', r'\(weights, z\)', r'\(z, weights\)', r'(z|weights) first'],
        'kind': 'type',
        'single_edit': True}


def dot_product_attention(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    scores = x @ x.transpose(-2, -1)
    weights = torch.softmax(scores, dim=-1)
    z = weights @ x
    return weights, z
