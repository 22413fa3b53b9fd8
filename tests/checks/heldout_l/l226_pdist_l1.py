META = {'exercise': '00.pairwise_sq_dists',
        'cause': 'sums the absolute differences (an L1 distance), not the squared differences',
        'keywords': [r'\bL1\b', r'absolute', r'squar', r'manhattan'],
        'kind': 'math',
        'single_edit': False}


def pairwise_sq_dists(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    diff = a.unsqueeze(-2) - b.unsqueeze(-3)
    return diff.abs().sum(dim=-1)
