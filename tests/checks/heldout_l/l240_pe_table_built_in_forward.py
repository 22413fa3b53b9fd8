META = {'exercise': '04.PositionalEncoding',
        'cause': "builds the table in forward on every call, on the CPU: no buffer 'pe', and it does not follow x's device",
        'keywords': [r'device', r'\bcpu\b', r'fakegpu', r'cuda', r'\bgpu\b', r'buffer', r'\bpe\b', r'register'],
        'kind': 'device',
        'single_edit': False}


from helpers.blocks.positional import sinusoidal_positional_encoding


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, max_len: int = 5000, dropout: float = 0.0):
        super().__init__()
        self.d_model, self.max_len = d_model, max_len
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        pe = sinusoidal_positional_encoding(x.size(1), self.d_model)
        return self.dropout(x + pe)
