META = {"exercise": "01.dot_product_attention", "correct": True, "source": "einsum formulation with ellipsis batch dims"}


def dot_product_attention(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    scores = torch.einsum("...id,...jd->...ij", x, x)
    weights = torch.softmax(scores, dim=-1)
    return torch.einsum("...ij,...jd->...id", weights, x), weights
