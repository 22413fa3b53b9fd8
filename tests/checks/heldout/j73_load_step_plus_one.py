META = {"exercise": "07b.load_checkpoint",
        "cause": "returns the saved step + 1 instead of the step it was saved at",
        "keywords": [r"step", r"return"]}


def load_checkpoint(path, model, optimizer):
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    return ckpt["step"] + 1
