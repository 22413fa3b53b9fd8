META = {"exercise": "07b.save_checkpoint",
        "cause": "uses the PyTorch tutorial's key names (model_state_dict, optimizer_state_dict, epoch) instead of \"model\", \"optimizer\", \"step\"",
        "keywords": [r"key", r"\"model\"|'model'|model_state_dict"]}


def save_checkpoint(path, model, optimizer, step):
    torch.save({"model_state_dict": model.state_dict(),
                "optimizer_state_dict": optimizer.state_dict(),
                "epoch": step}, path)
