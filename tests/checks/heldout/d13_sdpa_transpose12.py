META = {"exercise": "02.scaled_dot_product_attention",
        "cause": "transposes k with transpose(1, 2) instead of the last two dimensions: right only for 3-D (B, T, d) inputs; with a head dimension (or 2-D inputs) it raises or mixes dims",
        "keywords": [r"transpose\(-2, ?-1\)", r"last two", r"transpose\(1, ?2\)", r"batch|head dim"]}


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(1, 2) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(dim=-1)
    return weights @ v, weights
