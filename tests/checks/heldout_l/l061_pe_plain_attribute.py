META = {'exercise': '04.PositionalEncoding',
        'cause': 'the table is a plain attribute, not a registered buffer: .to(device) does not move it and state_dict() lacks it',
        'keywords': [r'buffer', r'register', r'state_dict', r'\.to\(', r'not moved', r'device', r'\bcpu\b', r'fakegpu', r'cuda', r'\bgpu\b'],
        'kind': 'device',
        'single_edit': True}


from helpers.blocks.positional import sinusoidal_positional_encoding


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, max_len: int = 5000, dropout: float = 0.0):
        super().__init__()
        self.pe = sinusoidal_positional_encoding(max_len, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        T = x.size(1)
        x = x + self.pe[:T]
        return self.dropout(x)
