META = {"exercise": "05.TransformerEncoderBlock",
        "cause": "reads norm_first backwards: norm_first=True runs the post-LN order and False the pre-LN order",
        "keywords": [r"norm_first", r"pre-?ln", r"post-?ln", r"invert|backward|swap"]}

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


    def forward(self, x, mask=None):
        if not self.norm_first:
            x = x + self._attn(self.norm1(x), mask)
            x = x + self.dropout2(self.ffn(self.norm2(x)))
        else:
            x = self.norm1(x + self._attn(x, mask))
            x = self.norm2(x + self.dropout2(self.ffn(x)))
        return x
