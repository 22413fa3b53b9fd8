META = {"exercise": "07b.load_checkpoint", "correct": True,
        "source": "torch.load with map_location to the model's device (the usual resume-on-another-machine idiom)"}


def load_checkpoint(path, model, optimizer):
    device = next(model.parameters()).device
    state = torch.load(path, map_location=device, weights_only=True)
    missing, unexpected = model.load_state_dict(state["model"])
    assert not missing and not unexpected
    optimizer.load_state_dict(state["optimizer"])
    return state["step"]
