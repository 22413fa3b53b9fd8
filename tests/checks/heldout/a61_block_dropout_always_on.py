META = {"exercise": "05.TransformerEncoderBlock", "cause": "F.dropout without training=self.training: dropout stays active in eval mode",
        "keywords": [r"eval", r"training", r"dropout"]}
from helpers.blocks import FeedForward, LayerNorm, MultiHeadAttention


class TransformerEncoderBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True, activation="relu"):
        super().__init__()
        self.norm_first, self.p = norm_first, dropout
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.ffn = FeedForward(d_model, d_ff, dropout, activation)
        self.norm1, self.norm2 = LayerNorm(d_model), LayerNorm(d_model)

    def forward(self, x, mask=None):
        if self.norm_first:
            x = x + F.dropout(self.self_attn(self.norm1(x), mask=mask)[0], self.p)
            x = x + F.dropout(self.ffn(self.norm2(x)), self.p)
        else:
            x = self.norm1(x + F.dropout(self.self_attn(x, mask=mask)[0], self.p))
            x = self.norm2(x + F.dropout(self.ffn(x), self.p))
        return x
