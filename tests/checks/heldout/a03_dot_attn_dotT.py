META = {"exercise": "01.dot_product_attention", "cause": "x.T reverses every dim: batched inputs are transposed over the batch dims, not the last two",
        "keywords": [r"\.T\b", r"transpose", r"batch", r"mT", r"last two"]}


def dot_product_attention(x):
    scores = x @ x.T
    weights = torch.softmax(scores, dim=-1)
    return weights @ x, weights
