META = {"exercise": "00.relu",
        "cause": "zeroes the negative entries of the input tensor in place and returns the input itself",
        "keywords": [r"in[- ]?place", r"modif", r"input.*(changed|altered|overwr)", r"mutat"]}


def relu(x: torch.Tensor) -> torch.Tensor:
    x[x <= 0] = 0
    return x
