META = {"exercise": "07.TransformerDecoderBlock",
        "cause": "in pre-LN, the cross-attention query is the raw x; norm2(x) is computed but only used as the residual base",
        "keywords": [r"norm2", r"cross", r"query", r"residual", r"pre-?ln"]}

from helpers.blocks.multihead import MultiHeadAttention
from helpers.blocks.layers import FeedForward, LayerNorm


class TransformerDecoderBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
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
        d = self.dropout
        if self.norm_first:
            x = x + d(self.self_attn(self.norm1(x), mask=tgt_mask)[0])
            h = self.norm2(x)
            x = h + d(self.cross_attn(x, memory, memory, mask=memory_mask)[0])
            x = x + d(self.ffn(self.norm3(x)))
        else:
            x = self.norm1(x + d(self.self_attn(x, mask=tgt_mask)[0]))
            x = self.norm2(x + d(self.cross_attn(x, memory, memory, mask=memory_mask)[0]))
            x = self.norm3(x + d(self.ffn(x)))
        return x
