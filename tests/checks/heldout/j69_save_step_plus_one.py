META = {"exercise": "07b.save_checkpoint",
        "cause": "stores step + 1 (the next step) instead of the step it was given",
        "keywords": [r"step"]}


def save_checkpoint(path, model, optimizer, step):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step + 1}, path)
