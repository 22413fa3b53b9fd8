META = {"exercise": "02.causal_mask", "cause": "the device argument is ignored: the mask is always created on the CPU",
        "keywords": [r"device"]}


def causal_mask(T, device=None):
    return torch.tril(torch.ones(T, T)).bool()
