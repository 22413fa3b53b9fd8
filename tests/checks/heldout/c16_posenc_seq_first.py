META = {"exercise": "04.PositionalEncoding", "cause": "indexes the table with x.size(0) as if x were sequence-first (T, B, d_model), so with batch-first input each sequence of the batch gets one position vector, pe[b], added to all its tokens", "keywords": [r"batch", r"seq(uence)?[- ]first", r"size\(0\)", r"size\(1\)", r"\(T, ?B"]}


def _table(max_len, d_model):
    pos = torch.arange(max_len, dtype=torch.float32)[:, None]
    two_i = torch.arange(0, d_model, 2, dtype=torch.float32)
    angles = pos / 10000.0 ** (two_i / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = angles.sin()
    pe[:, 1::2] = angles.cos()
    return pe


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        self.register_buffer("pe", _table(max_len, d_model))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        # one row of the table per position, broadcast over the other dimension
        return self.dropout(x + self.pe[: x.size(0)].unsqueeze(1))
