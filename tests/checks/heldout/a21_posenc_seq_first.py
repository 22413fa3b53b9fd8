META = {"exercise": "04.PositionalEncoding", "cause": "slices pe by x.size(0) (the batch) instead of the sequence length x.size(1)",
        "keywords": [r"size\(1\)", r"sequence length", r"\bT\b", r"batch", r"length", r"dim"]}


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        pos = torch.arange(max_len).float().unsqueeze(1)
        div = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(x + self.pe[: x.size(0)].unsqueeze(1))
