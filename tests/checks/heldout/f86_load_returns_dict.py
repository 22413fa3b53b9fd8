META = {"exercise": "07b.load_checkpoint",
        "cause": "returns the whole checkpoint dict instead of the step",
        "keywords": [r"\bdict\b", r"\bint\b|integer"]}


def load_checkpoint(path, model, optimizer):
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    return ckpt
