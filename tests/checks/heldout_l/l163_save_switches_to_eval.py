META = {'exercise': '07b.save_checkpoint',
        'cause': "calls model.eval() before saving: the caller's model is left in eval mode",
        'keywords': [r'\.eval\(\)', r'\.train\(', r'(left|leaves?|stays?|remains?|comes back|back) in (eval|evaluation|train|training)', r'(puts?|switch\w*|sets?|turns?) (the |your )?(model|module) (in|to|into) eval', r'restor', r'\.training\b', r"(switch|chang|flip)\w* (the )?(caller'?s? )?(model|module)'?s? mode", r'mode (is |was )?(not )?(restored|changed|kept)', r'leaves?'],
        'kind': 'mode/state',
        'single_edit': True}


def save_checkpoint(path, model, optimizer, step):
    model.eval()
    checkpoint = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}
    torch.save(checkpoint, path)
