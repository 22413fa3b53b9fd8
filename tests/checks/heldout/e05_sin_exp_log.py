META = {"exercise": "04.sinusoidal_positional_encoding", "correct": True,
        "source": "the PyTorch word_language_model / 'Annotated Transformer' form: div_term = exp(2i * -log(10000) / d_model), computed in float64 then cast to float32 (agrees with the reference to float32 rounding)"}


def sinusoidal_positional_encoding(max_len, d_model):
    position = torch.arange(max_len, dtype=torch.float64).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(10000.0) / d_model))
    pe = torch.zeros(max_len, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe.float()
