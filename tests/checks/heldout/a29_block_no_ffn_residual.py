META = {"exercise": "05.TransformerEncoderBlock", "cause": "the feed-forward sublayer has no residual connection",
        "keywords": [r"residual", r"skip", r"x \+"]}
from helpers.blocks import FeedForward, LayerNorm, MultiHeadAttention


class TransformerEncoderBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True, activation="relu"):
        super().__init__()
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.ffn = FeedForward(d_model, d_ff, dropout, activation)
        self.norm1, self.norm2 = LayerNorm(d_model), LayerNorm(d_model)
        self.drop = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        if self.norm_first:
            x = x + self.drop(self.self_attn(self.norm1(x), mask=mask)[0])
            x = self.drop(self.ffn(self.norm2(x)))
        else:
            x = self.norm1(x + self.drop(self.self_attn(x, mask=mask)[0]))
            x = self.norm2(self.drop(self.ffn(x)))
        return x
