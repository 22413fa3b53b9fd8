META = {"exercise": "07b.save_checkpoint",
        "cause": "saves a tuple (model state, optimizer state, step) instead of one dict with the keys model, optimizer, step",
        "keywords": [r"tuple", r"not a dict|one dict|a dict"]}


def save_checkpoint(path, model, optimizer, step):
    torch.save((model.state_dict(), optimizer.state_dict(), step), path)
