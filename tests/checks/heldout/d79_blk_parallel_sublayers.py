META = {"exercise": "05.TransformerEncoderBlock",
        "cause": "pre-LN: the feed-forward reads norm2 of the block input rather than of the updated stream (the two sublayers run in parallel on the same input instead of one after the other)",
        "keywords": [r"parallel", r"updated", r"sequential|one after|after attention", r"input of the (ffn|feed)"]}

from helpers.blocks.multihead import MultiHeadAttention
from helpers.blocks.layers import LayerNorm, FeedForward


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

    def forward(self, x, mask=None):
        if self.norm_first:
            attn = self._attn(self.norm1(x), mask)
            ff = self.dropout2(self.ffn(self.norm2(x)))
            x = x + attn + ff
        else:
            x = self.norm1(x + self._attn(x, mask))
            x = self.norm2(x + self.dropout2(self.ffn(x)))
        return x

    def _attn(self, h, mask):
        out, _ = self.self_attn(h, mask=mask)
        return self.dropout1(out)
