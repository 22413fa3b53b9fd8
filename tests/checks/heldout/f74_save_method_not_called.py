META = {"exercise": "07b.save_checkpoint",
        "cause": "model.state_dict and optimizer.state_dict without the parentheses: the bound methods (and with them the objects) are pickled, not the state dicts",
        "keywords": [r"state_dict\(\)|call|parenthes|bound method|method", r"weights_only|pickl"]}


def save_checkpoint(path, model, optimizer, step):
    torch.save({"model": model.state_dict, "optimizer": optimizer.state_dict, "step": step}, path)
