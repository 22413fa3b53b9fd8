META = {"exercise": "07b.save_checkpoint", "correct": True,
        "source": "deep copies of the state dicts (a snapshot that later steps cannot touch), then torch.save"}


def save_checkpoint(path, model, optimizer, step):
    import copy
    checkpoint = {"step": step,
                  "optimizer": copy.deepcopy(optimizer.state_dict()),
                  "model": {k: v.detach().clone() for k, v in model.state_dict().items()}}
    torch.save(checkpoint, path)
