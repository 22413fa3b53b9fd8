META = {'exercise': '01.softmax',
        'cause': 'casts to float32 before exp: float64 inputs come back as float32',
        'keywords': [r'dtype', r'precision', r'double', r'\bkeeps? (its |the )?type', r'(returns?|returned|came back|comes back|gives?|made|built) (as |in )?float(16|32|64)', r'float(32|64) (instead|rather|output|result|for)'],
        'kind': 'device',
        'single_edit': True}


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    m = x.amax(dim=dim, keepdim=True)
    e = torch.exp((x - m).float())
    return e / e.sum(dim=dim, keepdim=True)
