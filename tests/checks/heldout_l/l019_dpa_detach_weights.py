META = {'exercise': '01.dot_product_attention',
        'cause': 'the weights are detached before z = weights @ x: no gradient flows through the scores',
        'keywords': [r'detach', r'no[_ ]grad', r'gradient', r'backward', r'autograd', r'requires_grad', r'\bgrads?\b'],
        'kind': 'gradient',
        'single_edit': True}


def dot_product_attention(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    scores = x @ x.transpose(-2, -1)
    weights = torch.softmax(scores, dim=-1).detach()
    z = weights @ x
    return z, weights
