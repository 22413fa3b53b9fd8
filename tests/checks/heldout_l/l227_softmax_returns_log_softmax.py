META = {'exercise': '01.softmax',
        'cause': 'computes x - logsumexp(x), the log-softmax, and never exponentiates it',
        'keywords': [r'log[- ]?softmax', r'\blog\b', r'exponent', r'exp\(', r'negative', r'sum to 1'],
        'kind': 'math',
        'single_edit': False}


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    m = x.amax(dim=dim, keepdim=True)
    lse = m + (x - m).exp().sum(dim=dim, keepdim=True).log()
    return x - lse
