META = {"exercise": "07b.load_checkpoint",
        "cause": "optimizer.state.update(ckpt[\"optimizer\"][\"state\"]): the saved state is keyed by index, the optimizer looks it up by parameter, so AdamW starts with empty averages",
        "keywords": [r"load_state_dict", r"optimi[sz]er'?s? state|running averages|index|position"]}


def load_checkpoint(path, model, optimizer):
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer.state.update(ckpt["optimizer"]["state"])
    return ckpt["step"]
