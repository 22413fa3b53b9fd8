META = {"exercise": "07b.load_checkpoint",
        "cause": "loads ckpt[\"optimizer\"] into the model and ckpt[\"model\"] into the optimizer (the keys swapped)",
        "keywords": [r"swap|the other way|into the (model|optimi[sz]er)|wrong (key|state)"]}


def load_checkpoint(path, model, optimizer):
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["optimizer"])
    optimizer.load_state_dict(ckpt["model"])
    return ckpt["step"]
