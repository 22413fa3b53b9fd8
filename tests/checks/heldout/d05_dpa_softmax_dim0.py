META = {"exercise": "01.dot_product_attention",
        "cause": "softmax over dim=-2 (each key's column sums to 1) instead of over the last dimension (each query's row); the scores are symmetric so this is the transpose of the right weights",
        "keywords": [r"dim\s*=\s*-[12]|last dim", r"rows? (do not |don't )?sum to 1|each (query|row)", r"column", r"over the keys", r"transpos"]}


def dot_product_attention(x):
    scores = x @ x.transpose(-2, -1)  # (..., T, T)
    weights = torch.softmax(scores, dim=-2)
    return weights @ x, weights
