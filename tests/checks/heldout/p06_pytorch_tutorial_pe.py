META = {"exercise": "04.PositionalEncoding", "correct": True,
        "source": "https://github.com/pytorch/tutorials/blob/main/beginner_source/transformer_tutorial.py",
        "adapted": "argument order; the (max_len, 1, d_model) buffer kept, forward takes batch-first x (B, T, d) so the slice is transposed"}


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x + self.pe[: x.size(1)].transpose(0, 1)
        return self.dropout(x)
