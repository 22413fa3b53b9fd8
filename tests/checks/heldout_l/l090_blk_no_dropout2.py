META = {'exercise': '05.TransformerEncoderBlock',
        'cause': 'pre-LN: dropout2 is not applied to the feed-forward output',
        'keywords': [r'dropout (is |was )?(not |never )?(applied|active|used|on|off|missing|ignored|placed|acts|stays|remains)', r'(no|missing|without|skips?|ignor\w*|wrong|extra|never appl\w*|not appl\w*) (the )?dropout', r'dropout (acts |is applied |applied |runs )?(in eval|instead of|before|after|in the wrong place|on the (output|input|weights))', r'(before|after|instead of) (the )?dropout', r'dropout2'],
        'kind': 'mode/state',
        'single_edit': True}


from helpers.blocks.layers import FeedForward, LayerNorm
from helpers.blocks.multihead import MultiHeadAttention


class TransformerEncoderBlock(nn.Module):
    def __init__(self, d_model: int, num_heads: int, d_ff: int, dropout: float = 0.0,
                 norm_first: bool = True, activation: str = "relu"):
        super().__init__()
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.ffn = FeedForward(d_model, d_ff, dropout, activation)
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        if self.norm_first:
            x = x + self._attn(self.norm1(x), mask)
            x = x + self.ffn(self.norm2(x))
        else:
            x = self.norm1(x + self._attn(x, mask))
            x = self.norm2(x + self.dropout2(self.ffn(x)))
        return x

    def _attn(self, h, mask):
        out, _ = self.self_attn(h, mask=mask)
        return self.dropout1(out)
