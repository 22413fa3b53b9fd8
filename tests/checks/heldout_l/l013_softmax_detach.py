META = {'exercise': '01.softmax',
        'cause': 'exponentiates (x - m).detach(): the output carries no gradient back to x',
        'keywords': [r'detach', r'no[_ ]grad', r'gradient', r'backward', r'autograd', r'requires_grad', r'\bgrads?\b'],
        'kind': 'gradient',
        'single_edit': True}


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    m = x.amax(dim=dim, keepdim=True)
    e = torch.exp((x - m).detach())
    return e / e.sum(dim=dim, keepdim=True)
