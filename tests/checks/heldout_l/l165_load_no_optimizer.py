META = {'exercise': '07b.load_checkpoint',
        'cause': "loads the model's state but not the optimizer's",
        'keywords': [r'optimi[sz]er', r'AdamW', r'running average', r'moment', r'second (loss|step)'],
        'kind': 'mode/state',
        'single_edit': True}


def load_checkpoint(path, model, optimizer) -> int:
    checkpoint = torch.load(path, weights_only=True)
    model.load_state_dict(checkpoint["model"])
    return checkpoint["step"]
