META = {"exercise": "07b.load_checkpoint",
        "cause": "model.state_dict().update(...) and optimizer.state_dict().update(...): update a fresh copy of the state dicts, the model and optimizer are unchanged",
        "keywords": [r"load_state_dict", r"copy|unchanged|not loaded|still (fresh|random|at init)"]}


def load_checkpoint(path, model, optimizer):
    ckpt = torch.load(path, weights_only=True)
    model.state_dict().update(ckpt["model"])
    optimizer.state_dict().update(ckpt["optimizer"])
    return ckpt["step"]
