META = {"exercise": "07b.load_checkpoint",
        "cause": "loads both states but returns nothing (None) instead of the step",
        "keywords": [r"None|return(s|ed)? nothing|no return"]}


def load_checkpoint(path, model, optimizer):
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
