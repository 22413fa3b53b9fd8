META = {"exercise": "04.PositionalEncoding",
        "cause": "applies dropout to x before adding the table (dropout(x) + pe) instead of after (shows only in training mode with dropout > 0)",
        "keywords": [r"dropout", r"order"]}

from helpers.blocks.positional import sinusoidal_positional_encoding


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        T = x.size(1)
        return self.dropout(x) + self.pe[:T]  # (B, T, d_model)
