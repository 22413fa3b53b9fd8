META = {"exercise": "04.PositionalEncoding",
        "cause": "keeps the table as a plain tensor attribute (self.pe = table): not a buffer, so it does not move with .to(device) and is not in state_dict()",
        "keywords": [r"buffer", r"register_buffer", r"state_dict", r"\.to\(|device|move"]}

from helpers.blocks.positional import sinusoidal_positional_encoding


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        self.pe = sinusoidal_positional_encoding(max_len, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        T = x.size(1)
        return self.dropout(x + self.pe[:T])  # (B, T, d_model)
