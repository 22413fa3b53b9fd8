META = {"exercise": "01.dot_product_attention",
        "cause": "divides the scores by sqrt(d), the scaling that belongs to notebook 02, not this unscaled version",
        "keywords": [r"scal", r"sqrt", r"√"]}


def dot_product_attention(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    scores = x @ x.transpose(-2, -1) / math.sqrt(x.size(-1))
    weights = torch.softmax(scores, dim=-1)
    return weights @ x, weights
