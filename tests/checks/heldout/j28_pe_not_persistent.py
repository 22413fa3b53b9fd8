META = {"exercise": "04.PositionalEncoding",
        "cause": "registers the buffer with persistent=False, so pe is missing from state_dict()",
        "keywords": [r"persistent", r"state_dict", r"saved|save"]}

from helpers.blocks.positional import sinusoidal_positional_encoding


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model), persistent=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(x + self.pe[: x.size(1)])
