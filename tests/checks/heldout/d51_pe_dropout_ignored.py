META = {"exercise": "04.PositionalEncoding",
        "cause": "builds nn.Dropout() with its default p=0.5 instead of the dropout argument, so it drops even when dropout=0.0 (training mode)",
        "keywords": [r"dropout", r"0\.5", r"argument"]}

from helpers.blocks.positional import sinusoidal_positional_encoding


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model))
        self.dropout = nn.Dropout()

    def forward(self, x):
        T = x.size(1)
        return self.dropout(x + self.pe[:T])  # (B, T, d_model)
