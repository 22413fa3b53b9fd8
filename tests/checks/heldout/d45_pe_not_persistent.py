META = {"exercise": "04.PositionalEncoding",
        "cause": "registers pe with persistent=False, so it is missing from state_dict() (the text says the buffer is saved in the state dict)",
        "keywords": [r"state_dict", r"persistent", r"saved"]}

from helpers.blocks.positional import sinusoidal_positional_encoding


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model), persistent=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        T = x.size(1)
        return self.dropout(x + self.pe[:T])  # (B, T, d_model)
