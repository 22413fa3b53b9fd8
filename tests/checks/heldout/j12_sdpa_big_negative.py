META = {"exercise": "02.scaled_dot_product_attention",
        "cause": "fills masked scores with -1e9 instead of -inf, so a fully masked row gets uniform weights instead of NaN and float16 overflows",
        "keywords": [r"-?1e9", r"-inf", r"infinit", r"fully.{0,20}mask", r"empty row", r"all.{0,20}masked", r"nan"]}


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, -1e9)
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
