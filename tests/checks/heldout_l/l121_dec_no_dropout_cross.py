META = {'exercise': '07.TransformerDecoderBlock',
        'cause': 'no dropout on the cross-attention output',
        'keywords': [r'dropout (is |was )?(not |never )?(applied|active|used|on|off|missing|ignored|placed|acts|stays|remains)', r'(no|missing|without|skips?|ignor\w*|wrong|extra|never appl\w*|not appl\w*) (the )?dropout', r'dropout (acts |is applied |applied |runs )?(in eval|instead of|before|after|in the wrong place|on the (output|input|weights))', r'(before|after|instead of) (the )?dropout'],
        'kind': 'mode/state',
        'single_edit': True}


from helpers.blocks.layers import FeedForward, LayerNorm
from helpers.blocks.multihead import MultiHeadAttention


class TransformerDecoderBlock(nn.Module):
    def __init__(self, d_model: int, num_heads: int, d_ff: int, dropout: float = 0.0,
                 norm_first: bool = True):
        super().__init__()
        self.norm_first = norm_first
        self.dropout = nn.Dropout(dropout)
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.cross_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.ffn = FeedForward(d_model, d_ff, dropout)
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.norm3 = LayerNorm(d_model)

    def forward(self, x, memory, tgt_mask=None, memory_mask=None):
        if self.norm_first:
            x = x + self._sa(self.norm1(x), tgt_mask)
            x = x + self._ca(self.norm2(x), memory, memory_mask)
            x = x + self.dropout(self.ffn(self.norm3(x)))
        else:
            x = self.norm1(x + self._sa(x, tgt_mask))
            x = self.norm2(x + self._ca(x, memory, memory_mask))
            x = self.norm3(x + self.dropout(self.ffn(x)))
        return x

    def _sa(self, h, mask):
        return self.dropout(self.self_attn(h, mask=mask)[0])

    def _ca(self, h, memory, mask):
        return self.cross_attn(h, memory, memory, mask=mask)[0]
