META = {'exercise': '02.scaled_dot_product_attention',
        'correct': True,
        'source': "nanoGPT CausalSelfAttention's manual path (att * 1/sqrt(k.size(-1)), masked_fill -inf, F.softmax)"}


def scaled_dot_product_attention(q, k, v, mask=None):
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
    if mask is not None:
        att = att.masked_fill(mask == 0, float("-inf"))
    att = F.softmax(att, dim=-1)
    y = att @ v
    return y, att
