META = {"exercise": "04.PositionalEncoding",
        "cause": "stores the table as an nn.Parameter instead of a buffer, so the optimizer trains it (model.parameters() contains pe)",
        "keywords": [r"buffer", r"parameter", r"register_buffer", r"optimizer|trained|learn"]}

from helpers.blocks.positional import sinusoidal_positional_encoding


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        self.pe = nn.Parameter(sinusoidal_positional_encoding(max_len, d_model))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        T = x.size(1)
        return self.dropout(x + self.pe[:T])  # (B, T, d_model)
