META = {"exercise": "04.sinusoidal_positional_encoding", "correct": True,
        "source": "https://github.com/d2l-ai/d2l-en/blob/master/chapter_attention-mechanisms-and-transformers/self-attention-and-positional-encoding.md",
        "adapted": "the table P of d2l's PositionalEncoding.__init__, returned as (max_len, d_model)"}


def sinusoidal_positional_encoding(max_len, d_model):
    P = torch.zeros((1, max_len, d_model))
    X = torch.arange(max_len, dtype=torch.float32).reshape(-1, 1) / torch.pow(
        10000, torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
    P[:, :, 0::2] = torch.sin(X)
    P[:, :, 1::2] = torch.cos(X)
    return P[0]
