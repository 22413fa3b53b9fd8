META = {'exercise': '01.dot_product_attention',
        'cause': 'loops over x.size(0) and uses .T on each item: only right for 3-D inputs (a 2-D or 4-D x fails)',
        'keywords': [r'(only|just) (works|right|correct) for 3-?d', r'\b3-?d\b', r'any number of (batch|leading)', r'\b[24]-?d input', r'\.T\b', r'\bloop'],
        'kind': 'math',
        'single_edit': False}


def dot_product_attention(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    zs, ws = [], []
    for b in range(x.size(0)):
        w = torch.softmax(x[b] @ x[b].T, dim=-1)
        ws.append(w)
        zs.append(w @ x[b])
    return torch.stack(zs), torch.stack(ws)
