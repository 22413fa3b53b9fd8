META = {"exercise": "04.PositionalEncoding", "cause": "multiplies x by sqrt(d_model) inside the positional encoding (that scaling belongs to the embedding)",
        "keywords": [r"sqrt", r"√", r"scal", r"factor", r"embedding"]}


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        self.d_model = d_model
        pos = torch.arange(max_len).float().unsqueeze(1)
        div = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        x = x * math.sqrt(self.d_model) + self.pe[: x.size(1)]
        return self.dropout(x)
