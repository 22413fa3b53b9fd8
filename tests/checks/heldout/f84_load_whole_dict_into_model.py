META = {"exercise": "07b.load_checkpoint",
        "cause": "passes the whole checkpoint dict to model.load_state_dict (and to the optimizer) instead of checkpoint[\"model\"] and checkpoint[\"optimizer\"]",
        "keywords": [r"\[\"model\"\]|\['model'\]|whole (checkpoint|dict)|key"]}


def load_checkpoint(path, model, optimizer):
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt, strict=False)
    optimizer.load_state_dict(ckpt)
    return ckpt["step"]
