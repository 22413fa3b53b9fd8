META = {'exercise': '04.PositionalEncoding',
        'cause': 'slices the table with the batch size x.size(0) instead of the length',
        'keywords': [r'size\(0\)', r'(wrong|too long|too short|longer|shorter) (length|output)', r'length (is |was )?(wrong|differ)', r'too (long|short)', r'size\(1\)'],
        'kind': 'math',
        'single_edit': True}


from helpers.blocks.positional import sinusoidal_positional_encoding


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, max_len: int = 5000, dropout: float = 0.0):
        super().__init__()
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        T = x.size(0)
        x = x + self.pe[:T]
        return self.dropout(x)
