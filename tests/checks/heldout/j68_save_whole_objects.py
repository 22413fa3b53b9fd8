META = {"exercise": "07b.save_checkpoint",
        "cause": "saves the model and optimizer objects themselves instead of their state_dict(), which weights_only loading refuses",
        "keywords": [r"state_dict", r"weights_only", r"pickl", r"object"]}


def save_checkpoint(path, model, optimizer, step):
    torch.save({"model": model, "optimizer": optimizer, "step": step}, path)
