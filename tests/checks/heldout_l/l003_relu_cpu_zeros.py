META = {'exercise': '00.relu',
        'cause': "the zeros are made with torch.zeros(x.shape): on the CPU whatever x's device",
        'keywords': [r'device', r'\bcpu\b', r'fakegpu', r'cuda', r'\bgpu\b'],
        'kind': 'device',
        'single_edit': True}


def relu(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x > 0, x, torch.zeros(x.shape))
