META = {'exercise': '05.TransformerEncoderBlock',
        'cause': 'pre-LN: the mask is not passed to self-attention',
        'keywords': [r'mask (is )?(not|never|ignored|dropped|missing|unused)', r'(ignor|drop|miss|forg|lose|lost)\w* (the )?(\w+ )?mask', r'without (the |a |its )?mask', r'mask\w* (has )?no effect', r'not pass\w* (on )?(the )?mask', r'not causal', r'causal(ity)? (is )?(ignored|broken|violat|not)', r'(see|sees|attend\w*|leak\w*|look\w*) (at |to )?(the )?future', r'padd(ing|ed) (keys?|positions?|tokens?) (get|receive|are attended|is attended|not blocked|still)', r'(ignor|drop|miss)\w* (the )?padding', r'future'],
        'kind': 'math',
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
            x = x + self._attn(self.norm1(x), None)
            x = x + self.dropout2(self.ffn(self.norm2(x)))
        else:
            x = self.norm1(x + self._attn(x, mask))
            x = self.norm2(x + self.dropout2(self.ffn(x)))
        return x

    def _attn(self, h, mask):
        out, _ = self.self_attn(h, mask=mask)
        return self.dropout1(out)
