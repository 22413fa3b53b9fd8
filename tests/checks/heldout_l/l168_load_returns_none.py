META = {'exercise': '07b.load_checkpoint',
        'cause': 'returns nothing: the step is not returned',
        'keywords': [r'None', r'returns? nothing', r'no return', r'returned None', r'returns None', r'\bint\b'],
        'kind': 'type',
        'single_edit': True}


def load_checkpoint(path, model, optimizer) -> int:
    checkpoint = torch.load(path, weights_only=True)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])

