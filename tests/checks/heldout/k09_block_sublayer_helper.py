META = {"exercise": "05.TransformerEncoderBlock", "correct": True, "source": "Annotated-Transformer-style sublayer helper adapted to pre/post-LN"}

from helpers.blocks.multihead import MultiHeadAttention
from helpers.blocks.layers import FeedForward, LayerNorm


class TransformerEncoderBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True, activation="relu"):
        super().__init__()
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.ffn = FeedForward(d_model, d_ff, dropout, activation)
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)

    def _attn(self, h, mask):
        out, _ = self.self_attn(h, mask=mask)
        return self.dropout1(out)


    def _sub(self, x, norm, fn):
        return x + fn(norm(x)) if self.norm_first else norm(x + fn(x))

    def forward(self, x, mask=None):
        x = self._sub(x, self.norm1, lambda h: self._attn(h, mask))
        return self._sub(x, self.norm2, lambda h: self.dropout2(self.ffn(h)))
