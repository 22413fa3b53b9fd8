META = {'exercise': '07b.save_checkpoint',
        'cause': 'writes the model state, the optimizer state and the step to three files next to path, not one dict at path',
        'keywords': [r'one (dict|file)', r'three files', r'path', r'KeyError', r'not found', r"'model'"],
        'kind': 'mode/state',
        'single_edit': False}


def save_checkpoint(path, model, optimizer, step):
    torch.save(model.state_dict(), f"{path}.model")
    torch.save(optimizer.state_dict(), f"{path}.optim")
    torch.save({"step": step}, path)
