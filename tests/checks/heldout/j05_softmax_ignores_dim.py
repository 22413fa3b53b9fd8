META = {"exercise": "01.softmax",
        "cause": "always normalizes along the last dimension, ignoring the dim argument",
        "keywords": [r"\bdim\b", r"axis", r"dimension"]}


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    shifted = x - x.amax(dim=-1, keepdim=True)
    e = shifted.exp()
    return e / e.sum(dim=-1, keepdim=True)
