META = {"exercise": "04.PositionalEncoding",
        "cause": "stores the table as an nn.Parameter, so it is trained by the optimizer instead of being a buffer",
        "keywords": [r"buffer", r"parameter", r"learn|train|optimi[sz]er|requires_grad"]}

from helpers.blocks.positional import sinusoidal_positional_encoding


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        self.pe = nn.Parameter(sinusoidal_positional_encoding(max_len, d_model))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(x + self.pe[: x.size(1)])
