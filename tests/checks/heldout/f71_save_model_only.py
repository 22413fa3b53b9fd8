META = {"exercise": "07b.save_checkpoint",
        "cause": "saves the model's state and the step but not the optimizer's state: a resumed AdamW starts with empty running averages",
        "keywords": [r"optimi[sz]er"]}


def save_checkpoint(path, model, optimizer, step):
    torch.save({"model": model.state_dict(), "step": step}, path)
