META = {"exercise": "07b.load_checkpoint",
        "cause": "loads the optimizer state into a new AdamW built inside the function, leaving the caller's optimizer untouched",
        "keywords": [r"optimi[sz]er", r"given|handed|caller", r"inside the function", r"fresh"]}


def load_checkpoint(path, model, optimizer):
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer = torch.optim.AdamW(model.parameters())
    optimizer.load_state_dict(ckpt["optimizer"])
    return ckpt["step"]
