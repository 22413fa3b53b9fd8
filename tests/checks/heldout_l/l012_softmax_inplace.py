META = {'exercise': '01.softmax',
        'cause': "subtracts the max from x in place (x -= m): the caller's tensor is changed",
        'keywords': [r'in[- ]?place', r'mutat', r'(chang|modif|overwr|alter)\w*\W+(\w+\W+){0,4}(input|argument|caller|given)', r'(input|argument|caller)\w*\W+(\w+\W+){0,4}(chang|modif|overwr|alter)'],
        'kind': 'mode/state',
        'single_edit': False}


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    m = x.amax(dim=dim, keepdim=True)
    x -= m
    e = torch.exp(x)
    return e / e.sum(dim=dim, keepdim=True)
