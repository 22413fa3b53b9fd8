META = {'exercise': '07b.load_checkpoint',
        'cause': "calls model.eval() after loading: the caller's model is left in eval mode",
        'keywords': [r'\.eval\(\)', r'\.train\(', r'(left|leaves?|stays?|remains?|comes back|back) in (eval|evaluation|train|training)', r'(puts?|switch\w*|sets?|turns?) (the |your )?(model|module) (in|to|into) eval', r'restor', r'\.training\b', r"(switch|chang|flip)\w* (the )?(caller'?s? )?(model|module)'?s? mode", r'mode (is |was )?(not )?(restored|changed|kept)', r'leaves?'],
        'kind': 'mode/state',
        'single_edit': True}


def load_checkpoint(path, model, optimizer) -> int:
    checkpoint = torch.load(path, weights_only=True)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    model.eval()
    return checkpoint["step"]
