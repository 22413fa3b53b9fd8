META = {'exercise': '04.PositionalEncoding',
        'cause': 'the table is an nn.Parameter: the optimizer trains it, where it should be a fixed buffer',
        'keywords': [r'buffer', r'nn\.Parameter', r'parameters\(\)', r'trainable', r'learn', r'requires_grad', r'optimi[sz]er'],
        'kind': 'gradient',
        'single_edit': True}


from helpers.blocks.positional import sinusoidal_positional_encoding


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, max_len: int = 5000, dropout: float = 0.0):
        super().__init__()
        self.pe = nn.Parameter(sinusoidal_positional_encoding(max_len, d_model))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        T = x.size(1)
        x = x + self.pe[:T]
        return self.dropout(x)
