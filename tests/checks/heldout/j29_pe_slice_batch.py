META = {"exercise": "04.PositionalEncoding",
        "cause": "slices the table with x.size(0), the batch size, instead of the sequence length T = x.size(1)",
        "keywords": [r"size\(0\)", r"size\(1\)", r"batch", r"sequence length", r"\bT\b", r"slice"]}

from helpers.blocks.positional import sinusoidal_positional_encoding


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(x + self.pe[: x.size(0)])
