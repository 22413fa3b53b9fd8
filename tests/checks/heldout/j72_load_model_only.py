META = {"exercise": "07b.load_checkpoint",
        "cause": "restores only the model, never the optimizer state, so the resumed losses diverge from the second step",
        "keywords": [r"optimi[sz]er", r"second step", r"adam", r"moment|running average"]}


def load_checkpoint(path, model, optimizer):
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"])
    return ckpt["step"]
