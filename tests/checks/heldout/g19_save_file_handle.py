META = {"exercise": "07b.save_checkpoint", "correct": True,
        "source": "dict(...) written through an open binary file handle"}


def save_checkpoint(path, model, optimizer, step):
    state = dict(model=model.state_dict(), optimizer=optimizer.state_dict(), step=int(step))
    with open(path, "wb") as f:
        torch.save(state, f)
