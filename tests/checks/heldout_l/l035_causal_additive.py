META = {'exercise': '02.causal_mask',
        'cause': "returns nn.Transformer's additive float mask (0 and -inf), not a boolean mask with True = may attend",
        'keywords': [r'bool', r'dtype', r'\bfloat\b(?!\()', r'-inf', r'additive', r'convention'],
        'kind': 'type',
        'single_edit': True}


def causal_mask(T, device=None):
    return torch.full((T, T), float("-inf"), device=device).triu(1)
