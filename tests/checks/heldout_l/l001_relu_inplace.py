META = {'exercise': '00.relu',
        'cause': "zeroes the negative entries of x in place and returns x: the caller's tensor is changed",
        'keywords': [r'in[- ]?place', r'mutat', r'(chang|modif|overwr|alter)\w*\W+(\w+\W+){0,4}(input|argument|caller|given)', r'(input|argument|caller)\w*\W+(\w+\W+){0,4}(chang|modif|overwr|alter)'],
        'kind': 'mode/state',
        'single_edit': False}


def relu(x: torch.Tensor) -> torch.Tensor:
    x[x < 0] = 0
    return x
