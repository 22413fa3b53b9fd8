META = {"exercise": "07.TransformerDecoderBlock",
        "cause": "uses self.self_attn for the cross-attention sublayer too (cross_attn is created but never used), so both attentions share weights",
        "keywords": [r"cross_attn", r"self_attn", r"shared|same (module|weights)|reus"]}

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
            x = x + self.dropout(self.self_attn(self.norm1(x), mask=tgt_mask)[0])
            x = x + self.dropout(self.self_attn(self.norm2(x), memory, memory, mask=memory_mask)[0])
            x = x + self.dropout(self.ffn(self.norm3(x)))
        else:
            x = self.norm1(x + self.dropout(self.self_attn(x, mask=tgt_mask)[0]))
            x = self.norm2(x + self.dropout(self.self_attn(x, memory, memory, mask=memory_mask)[0]))
            x = self.norm3(x + self.dropout(self.ffn(x)))
        return x
