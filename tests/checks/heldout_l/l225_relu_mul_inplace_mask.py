META = {'exercise': '00.relu',
        'cause': "multiplies x in place by its positive mask (x.mul_): the caller's tensor is changed",
        'keywords': [r'in[- ]?place', r'mutat', r'(chang|modif|overwr|alter)\w*\W+(\w+\W+){0,4}(input|argument|caller|given)', r'(input|argument|caller)\w*\W+(\w+\W+){0,4}(chang|modif|overwr|alter)'],
        'kind': 'mode/state',
        'single_edit': False}


def relu(x: torch.Tensor) -> torch.Tensor:
    keep = (x > 0).to(x.dtype)
    return x.mul_(keep)
