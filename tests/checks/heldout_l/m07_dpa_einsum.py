META = {'exercise': '01.dot_product_attention',
        'correct': True,
        'source': "torch.einsum form (the notebook's open exercise 3)"}


def dot_product_attention(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    scores = torch.einsum("...id,...jd->...ij", x, x)
    weights = scores.softmax(dim=-1)
    return torch.einsum("...ij,...jd->...id", weights, x), weights
