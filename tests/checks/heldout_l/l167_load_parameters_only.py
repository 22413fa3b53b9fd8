META = {'exercise': '07b.load_checkpoint',
        'cause': 'copies the parameters one by one: the buffers are not restored',
        'keywords': [r'buffer', r'load_state_dict', r'named_parameters', r'parameters only'],
        'kind': 'mode/state',
        'single_edit': False}


def load_checkpoint(path, model, optimizer) -> int:
    checkpoint = torch.load(path, weights_only=True)
    for name, p in model.named_parameters():
        p.data.copy_(checkpoint["model"][name])
    optimizer.load_state_dict(checkpoint["optimizer"])
    return checkpoint["step"]
