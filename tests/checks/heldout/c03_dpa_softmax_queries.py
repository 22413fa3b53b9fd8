META = {"exercise": "01.dot_product_attention", "cause": "softmax is taken over dim=-2 (over the queries, down the columns) instead of over the keys, so the rows of the weights do not sum to 1", "keywords": [r"dim ?= ?-2", r"column", r"over the quer", r"rows? (do not|don't|must) sum", r"sum to 1", r"over the keys"]}


def dot_product_attention(x):
    scores = x @ x.transpose(-2, -1)              # (..., T, T)
    weights = torch.softmax(scores, dim=-2)
    z = weights @ x                              # (..., T, d)
    return z, weights
