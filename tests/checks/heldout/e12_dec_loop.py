META = {"exercise": "07.TransformerDecoderBlock", "correct": True,
        "source": "the three sublayers as a loop over (norm, function) pairs, one residual rule for pre- and post-LN"}

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
        self.norm1, self.norm2, self.norm3 = (LayerNorm(d_model) for _ in range(3))

    def forward(self, x, memory, tgt_mask=None, memory_mask=None):
        sublayers = (
            (self.norm1, lambda h: self.self_attn(h, h, h, mask=tgt_mask)[0]),
            (self.norm2, lambda h: self.cross_attn(h, memory, memory, mask=memory_mask)[0]),
            (self.norm3, self.ffn),
        )
        for norm, fn in sublayers:
            if self.norm_first:
                x = x + self.dropout(fn(norm(x)))
            else:
                x = norm(x + self.dropout(fn(x)))
        return x
