META = {'exercise': '07b.load_checkpoint',
        'cause': 'returns the step as a tensor, not an int',
        'keywords': [r'\bint\b', r'(not|instead of|rather than) an? (python |0-d )?(float|tensor|int|str|string|list)', r'(returns?|returned|got|is) an? (python |0-d )?(float|tensor|int|list|str|string)', r'python (float|int|list)', r'(wrong|return) type', r'type (is|was|should be)'],
        'kind': 'type',
        'single_edit': True}


def load_checkpoint(path, model, optimizer) -> int:
    checkpoint = torch.load(path, weights_only=True)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    return torch.tensor(checkpoint["step"])
