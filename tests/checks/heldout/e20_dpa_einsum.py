META = {"exercise": "01.dot_product_attention", "correct": True,
        "source": "einsum with ellipsis for the batch dimensions (the notebook's open exercise 3), weights via the exp / sum form"}


def dot_product_attention(x):
    scores = torch.einsum("...id,...jd->...ij", x, x)
    e = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    weights = e / e.sum(dim=-1, keepdim=True)
    return torch.einsum("...ij,...jd->...id", weights, x), weights
