META = {"exercise": "07b.load_checkpoint",
        "cause": "loads the model's state but not the optimizer's: the resumed AdamW starts with empty running averages, the losses differ from the second step on",
        "keywords": [r"optimi[sz]er"]}


def load_checkpoint(path, model, optimizer):
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"])
    return ckpt["step"]
