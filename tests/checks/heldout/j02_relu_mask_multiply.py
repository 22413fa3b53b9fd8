META = {"exercise": "00.relu",
        "cause": "multiplies x by the boolean mask, so -inf entries become NaN (-inf * 0)",
        "keywords": [r"nan", r"-?inf", r"infinit"]}


def relu(x: torch.Tensor) -> torch.Tensor:
    return x * (x > 0)
