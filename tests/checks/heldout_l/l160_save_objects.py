META = {'exercise': '07b.save_checkpoint',
        'cause': 'saves the model and optimizer objects (pickled), which torch.load(weights_only=True) refuses',
        'keywords': [r'weights_only', r'state_dict', r'pickl', r'object', r'Unpickl'],
        'kind': 'mode/state',
        'single_edit': True}


def save_checkpoint(path, model, optimizer, step):
    checkpoint = {"model": model, "optimizer": optimizer, "step": step}
    torch.save(checkpoint, path)
