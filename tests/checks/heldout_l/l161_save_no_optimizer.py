META = {'exercise': '07b.save_checkpoint',
        'cause': "the optimizer's state is not saved",
        'keywords': [r'optimi[sz]er', r'AdamW', r'running average', r'moment'],
        'kind': 'mode/state',
        'single_edit': True}


def save_checkpoint(path, model, optimizer, step):
    checkpoint = {"model": model.state_dict(), "step": step}
    torch.save(checkpoint, path)
