META = {"exercise": "07b.load_checkpoint", "correct": True,
        "source": "optimizer state loaded before the model's, through an open file handle, step as int"}


def load_checkpoint(path, model, optimizer):
    with open(path, "rb") as f:
        checkpoint = torch.load(f, weights_only=True)
    optimizer.load_state_dict(checkpoint["optimizer"])
    model.load_state_dict(checkpoint["model"], strict=True)
    return int(checkpoint["step"])
