META = {"exercise": "04.PositionalEncoding", "cause": "stores the table as an nn.Parameter instead of registering it as a buffer, so the optimizer sees (and would train) it", "keywords": [r"buffer", r"nn\.parameter|as a parameter|is a parameter", r"register_buffer", r"optimi[sz]er"]}


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
        self.pe = nn.Parameter(_table(max_len, d_model))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        T = x.size(1)
        return self.dropout(x + self.pe[:T])
