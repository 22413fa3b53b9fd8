META = {"exercise": "07.TransformerDecoderBlock", "cause": "in pre-LN, norm2(x) is computed but the cross-attention queries are taken from the raw x instead of the normalized h", "keywords": [r"norm2", r"normali[sz]ed (input|stream|x|h|quer)", r"cross[- ]attention('s)? quer", r"raw x"]}

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
        self.norm1, self.norm2, self.norm3 = LayerNorm(d_model), LayerNorm(d_model), LayerNorm(d_model)

    def _sa(self, h, tgt_mask):
        return self.dropout(self.self_attn(h, mask=tgt_mask)[0])

    def _ca(self, h, memory, memory_mask):
        return self.dropout(self.cross_attn(h, memory, memory, mask=memory_mask)[0])

    def _ff(self, h):
        return self.dropout(self.ffn(h))

    def forward(self, x, memory, tgt_mask=None, memory_mask=None):
        if self.norm_first:
            x = x + self._sa(self.norm1(x), tgt_mask)
            h = self.norm2(x)
            x = x + self._ca(x, memory, memory_mask)
            x = x + self._ff(self.norm3(x))
            return x
        x = self.norm1(x + self._sa(x, tgt_mask))
        x = self.norm2(x + self._ca(x, memory, memory_mask))
        return self.norm3(x + self._ff(x))
