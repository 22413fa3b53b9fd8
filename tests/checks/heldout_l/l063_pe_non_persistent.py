META = {'exercise': '04.PositionalEncoding',
        'cause': 'the buffer is registered with persistent=False: it is not saved in state_dict()',
        'keywords': [r'persistent', r'state_dict', r'saved'],
        'kind': 'mode/state',
        'single_edit': True}


from helpers.blocks.positional import sinusoidal_positional_encoding


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, max_len: int = 5000, dropout: float = 0.0):
        super().__init__()
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model), persistent=False)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        T = x.size(1)
        x = x + self.pe[:T]
        return self.dropout(x)
