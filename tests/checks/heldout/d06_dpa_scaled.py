META = {"exercise": "01.dot_product_attention",
        "cause": "divides the scores by sqrt(d) (scaled attention of notebook 02) although this exercise asks for no scaling",
        "keywords": [r"scal", r"sqrt", r"√", r"divid"]}


def dot_product_attention(x):
    scores = x @ x.transpose(-2, -1) / math.sqrt(x.size(-1))
    weights = torch.softmax(scores, dim=-1)
    return weights @ x, weights
