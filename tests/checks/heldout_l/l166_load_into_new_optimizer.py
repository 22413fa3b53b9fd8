META = {'exercise': '07b.load_checkpoint',
        'cause': "builds a new AdamW inside the function and loads into it: the caller's optimizer is untouched",
        'keywords': [r'new optimi[sz]er', r'caller', r'given', r'optimi[sz]er', r'parameter groups?'],
        'kind': 'mode/state',
        'single_edit': True}


def load_checkpoint(path, model, optimizer) -> int:
    checkpoint = torch.load(path, weights_only=True)
    model.load_state_dict(checkpoint["model"])
    optimizer = torch.optim.AdamW(model.parameters())
    optimizer.load_state_dict(checkpoint["optimizer"])
    return checkpoint["step"]
