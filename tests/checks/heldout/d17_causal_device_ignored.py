META = {"exercise": "02.causal_mask",
        "cause": "ignores the device argument: the mask is always made on the CPU",
        "keywords": [r"device", r"cpu"]}


def causal_mask(T, device=None):
    mask = torch.ones(T, T, dtype=torch.bool).tril()
    return mask
