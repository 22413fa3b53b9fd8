META = {"exercise": "01.dot_product_attention", "correct": True, "source": "einsum for both products, max-shifted softmax written inline"}


def dot_product_attention(x):
    scores = torch.einsum("...id,...jd->...ij", x, x)            # (..., T, T)
    e = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    weights = e / e.sum(dim=-1, keepdim=True)
    z = torch.einsum("...ij,...jd->...id", weights, x)            # (..., T, d)
    return z, weights
