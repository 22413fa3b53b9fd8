META = {'exercise': '04.PositionalEncoding',
        'cause': 'dropout acts on x before the table is added, not on the sum',
        'keywords': [r'dropout (is |was )?(not |never )?(applied|active|used|on|off|missing|ignored|placed|acts|stays|remains)', r'(no|missing|without|skips?|ignor\w*|wrong|extra|never appl\w*|not appl\w*) (the )?dropout', r'dropout (acts |is applied |applied |runs )?(in eval|instead of|before|after|in the wrong place|on the (output|input|weights))', r'(before|after|instead of) (the )?dropout', r'before (the )?(dropout|add|sum|computing|correction|alpha|rescal|scal)'],
        'kind': 'mode/state',
        'single_edit': False}


from helpers.blocks.positional import sinusoidal_positional_encoding


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, max_len: int = 5000, dropout: float = 0.0):
        super().__init__()
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        T = x.size(1)
        return self.dropout(x) + self.pe[:T]
