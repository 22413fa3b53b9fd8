META = {'exercise': '07.TransformerDecoderBlock',
        'cause': 'calls self.self_attn(h, tgt_mask) with the mask as the second positional argument, which is key',
        'keywords': [r'key', r'positional', r'mask=', r'keyword', r'second argument'],
        'kind': 'math',
        'single_edit': False}


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
            x = x + self.dropout(self.self_attn(self.norm1(x), tgt_mask)[0])
            x = x + self.dropout(self.cross_attn(self.norm2(x), memory, memory, mask=memory_mask)[0])
            return x + self.dropout(self.ffn(self.norm3(x)))
        x = self.norm1(x + self.dropout(self.self_attn(x, tgt_mask)[0]))
        x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, mask=memory_mask)[0]))
        return self.norm3(x + self.dropout(self.ffn(x)))
