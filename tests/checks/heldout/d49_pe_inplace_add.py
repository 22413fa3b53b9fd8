META = {"exercise": "04.PositionalEncoding",
        "cause": "adds the table in place (x += pe[:T]), which overwrites the caller's input tensor",
        "keywords": [r"in[- ]place", r"modif", r"overwrit", r"input", r"mutat"]}

from helpers.blocks.positional import sinusoidal_positional_encoding


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        T = x.size(1)
        x += self.pe[:T]
        return self.dropout(x)  # (B, T, d_model)
