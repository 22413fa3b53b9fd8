META = {"exercise": "07.TransformerDecoderBlock", "cause": "cross-attention takes keys and values from the decoder x instead of memory",
        "keywords": [r"memory", r"cross", r"encoder"]}
from helpers.blocks import FeedForward, LayerNorm, MultiHeadAttention


class TransformerDecoderBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__()
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.cross_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.ffn = FeedForward(d_model, d_ff, dropout)
        self.norm1, self.norm2, self.norm3 = LayerNorm(d_model), LayerNorm(d_model), LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, memory, tgt_mask=None, memory_mask=None):
        if self.norm_first:
            x = x + self.dropout(self.self_attn(self.norm1(x), mask=tgt_mask)[0])
            h = self.norm2(x)
            x = x + self.dropout(self.cross_attn(h, h, h, mask=memory_mask)[0])
            x = x + self.dropout(self.ffn(self.norm3(x)))
        else:
            x = self.norm1(x + self.dropout(self.self_attn(x, mask=tgt_mask)[0]))
            x = self.norm2(x + self.dropout(self.cross_attn(x, x, x, mask=memory_mask)[0]))
            x = self.norm3(x + self.dropout(self.ffn(x)))
        return x
