META = {"exercise": "04.PositionalEncoding",
        "cause": "ignores max_len and always builds a 5000-row table, so the buffer pe has the wrong shape (state_dict does not load)",
        "keywords": [r"max_len", r"shape", r"5000"]}

from helpers.blocks.positional import sinusoidal_positional_encoding


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        self.register_buffer("pe", sinusoidal_positional_encoding(5000, d_model))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        T = x.size(1)
        return self.dropout(x + self.pe[:T])  # (B, T, d_model)
