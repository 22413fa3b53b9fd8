META = {'exercise': '07b.load_checkpoint',
        'cause': "updates the dict that model.state_dict() returns: the model's tensors are not loaded",
        'keywords': [r'load_state_dict', r'not loaded', r"model'?s? (weights|state|parameters)", r'first loss', r'state_dict\(\)'],
        'kind': 'mode/state',
        'single_edit': True}


def load_checkpoint(path, model, optimizer) -> int:
    checkpoint = torch.load(path, weights_only=True)
    model.state_dict().update(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    return checkpoint["step"]
