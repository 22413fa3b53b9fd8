META = {'exercise': '00.relu',
        'cause': 'works on x.detach().clone(): the output carries no gradient back to x',
        'keywords': [r'detach', r'no[_ ]grad', r'gradient', r'backward', r'autograd', r'requires_grad', r'\bgrads?\b'],
        'kind': 'gradient',
        'single_edit': False}


def relu(x: torch.Tensor) -> torch.Tensor:
    y = x.detach().clone()
    y[y < 0] = 0
    return y
