META = {"exercise": "07b.save_checkpoint",
        "cause": "uses the keys model_state_dict / optimizer_state_dict (the PyTorch tutorial's) instead of model / optimizer",
        "keywords": [r"key", r"model_state_dict|optimizer_state_dict", r"\"model\"|'model'", r"keyerror"]}


def save_checkpoint(path, model, optimizer, step):
    torch.save({"model_state_dict": model.state_dict(),
                "optimizer_state_dict": optimizer.state_dict(), "step": step}, path)
