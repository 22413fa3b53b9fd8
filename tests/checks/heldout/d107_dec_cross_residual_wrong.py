META = {"exercise": "07.TransformerDecoderBlock",
        "cause": "pre-LN: the cross-attention residual is added to the block's input instead of the output of the self-attention sublayer, dropping the self-attention update",
        "keywords": [r"residual", r"self-attention (sublayer|output|update)", r"block's input|original input", r"stream"]}

from helpers.blocks.layers import FeedForward, LayerNorm
from helpers.blocks.multihead import MultiHeadAttention


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
        if self.norm_first:
            h = x + self.dropout(self.self_attn(self.norm1(x), mask=tgt_mask)[0])
            x = x + self.dropout(self.cross_attn(self.norm2(h), memory, memory, mask=memory_mask)[0])
            x = x + self.dropout(self.ffn(self.norm3(x)))
        else:
            x = self.norm1(x + self.dropout(self.self_attn(x, mask=tgt_mask)[0]))
            x = self.norm2(x + self.dropout(self.cross_attn(x, memory, memory, mask=memory_mask)[0]))
            x = self.norm3(x + self.dropout(self.ffn(x)))
        return x
