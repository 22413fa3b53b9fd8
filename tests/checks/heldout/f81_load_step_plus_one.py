META = {"exercise": "07b.load_checkpoint",
        "cause": "returns step + 1 (\"the saved step is done\"), but the checkpoint is the state before that step: the resumed run skips it",
        "keywords": [r"step ?\+ ?1|one (step )?(too )?(late|off|ahead)|off by one|skips?|before (that|this|the) step"]}


def load_checkpoint(path, model, optimizer):
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    return ckpt["step"] + 1
