META = {"exercise": "05.TransformerEncoderBlock", "cause": "norm_first is ignored: the block is always pre-LN, so norm_first=False is wrong",
        "keywords": [r"norm_first", r"post-?LN", r"pre-?LN", r"post-?norm"]}
from helpers.blocks import FeedForward, LayerNorm, MultiHeadAttention


class TransformerEncoderBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True, activation="relu"):
        super().__init__()
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.ffn = FeedForward(d_model, d_ff, dropout, activation)
        self.norm1, self.norm2 = LayerNorm(d_model), LayerNorm(d_model)
        self.dropout1, self.dropout2 = nn.Dropout(dropout), nn.Dropout(dropout)

    def forward(self, x, mask=None):
        x = x + self.dropout1(self.self_attn(self.norm1(x), mask=mask)[0])
        return x + self.dropout2(self.ffn(self.norm2(x)))
