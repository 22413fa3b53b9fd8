META = {"exercise": "04.PositionalEncoding",
        "cause": "takes T from x.size(0), the batch size, instead of x.size(1): with B = 1 every position gets pe[0] silently; otherwise it raises or adds the wrong rows",
        "keywords": [r"size\(1\)", r"size\(0\)", r"batch", r"sequence length|\bT\b"]}

from helpers.blocks.positional import sinusoidal_positional_encoding


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        T = x.size(0)
        return self.dropout(x + self.pe[:T])  # (B, T, d_model)
