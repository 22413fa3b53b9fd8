META = {"exercise": "07b.save_checkpoint",
        "cause": "saves the model and optimizer objects themselves instead of their state_dict(): torch.load(weights_only=True) refuses the pickled objects",
        "keywords": [r"state_dict", r"weights_only|pickl|the objects?"]}


def save_checkpoint(path, model, optimizer, step):
    torch.save({"model": model, "optimizer": optimizer, "step": step}, path)
