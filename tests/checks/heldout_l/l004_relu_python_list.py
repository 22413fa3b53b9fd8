META = {'exercise': '00.relu',
        'cause': "rebuilds the result from a Python list with torch.tensor: float32 on the CPU whatever x's dtype and device, and no gradient",
        'keywords': [r'dtype', r'precision', r'double', r'\bkeeps? (its |the )?type', r'(returns?|returned|came back|comes back|gives?|made|built) (as |in )?float(16|32|64)', r'float(32|64) (instead|rather|output|result|for)', r'device', r'\bcpu\b', r'fakegpu', r'cuda', r'\bgpu\b', r'python (list|float)', r'tolist'],
        'kind': 'device',
        'single_edit': False}


def relu(x: torch.Tensor) -> torch.Tensor:
    values = [v if v > 0 else 0.0 for v in x.flatten().tolist()]
    return torch.tensor(values).reshape(x.shape)
