META = {"exercise": "07b.load_checkpoint",
        "cause": "builds a new AdamW inside the function and loads the optimizer state into it: the optimizer the caller passed stays fresh",
        "keywords": [r"(the )?optimi[sz]er (you are|you were|it is) (given|handed|passed)|caller|built inside|new optimi[sz]er|fresh optimi[sz]er|optimi[sz]er'?s? state"]}


def load_checkpoint(path, model, optimizer):
    ckpt = torch.load(path, weights_only=True)
    model.load_state_dict(ckpt["model"])
    optimizer = torch.optim.AdamW(model.parameters())  # a clean optimizer for the loaded model
    optimizer.load_state_dict(ckpt["optimizer"])
    return ckpt["step"]
