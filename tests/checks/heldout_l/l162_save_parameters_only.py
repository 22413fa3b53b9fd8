META = {'exercise': '07b.save_checkpoint',
        'cause': 'saves dict(model.named_parameters()): the buffers are lost',
        'keywords': [r'buffer', r'named_parameters', r'state_dict\(\)', r'missing key'],
        'kind': 'mode/state',
        'single_edit': True}


def save_checkpoint(path, model, optimizer, step):
    checkpoint = {"model": dict(model.named_parameters()), "optimizer": optimizer.state_dict(), "step": step}
    torch.save(checkpoint, path)
