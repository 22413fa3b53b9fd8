META = {"exercise": "01.dot_product_attention",
        "cause": "uses x.T, which reverses all dimensions: right for a 2-D x, but a batched x raises or mixes batch elements",
        "keywords": [r"\.T\b", r"transpose\(-2, ?-1\)", r"batch", r"all dim", r"last two"]}


def dot_product_attention(x):
    weights = torch.softmax(x @ x.T, dim=-1)
    return weights @ x, weights
