META = {"exercise": "07b.save_checkpoint",
        "cause": "saves dict(model.named_parameters()) instead of model.state_dict(): buffers (and a tied weight's second name) are missing",
        "keywords": [r"state_dict", r"buffer|missing|named_parameters"]}


def save_checkpoint(path, model, optimizer, step):
    weights = {name: p.detach() for name, p in model.named_parameters()}
    torch.save({"model": weights, "optimizer": optimizer.state_dict(), "step": step}, path)
