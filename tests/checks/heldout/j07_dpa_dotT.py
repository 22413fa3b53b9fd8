META = {"exercise": "01.dot_product_attention",
        "cause": "uses x.T, which reverses all dimensions of a batched input instead of swapping the last two",
        "keywords": [r"\.T\b", r"transpose", r"batch", r"last two"]}


def dot_product_attention(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    scores = x @ x.T
    weights = torch.softmax(scores, dim=-1)
    return weights @ x, weights
