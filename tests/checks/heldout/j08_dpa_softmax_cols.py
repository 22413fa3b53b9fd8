META = {"exercise": "01.dot_product_attention",
        "cause": "normalizes the scores over dim -2 (columns) instead of the last dimension, so rows do not sum to 1",
        "keywords": [r"dim", r"column", r"rows?.{0,20}sum", r"sum.{0,10}to 1", r"axis"]}


def dot_product_attention(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    scores = x @ x.transpose(-2, -1)
    weights = torch.softmax(scores, dim=-2)
    return weights @ x, weights
