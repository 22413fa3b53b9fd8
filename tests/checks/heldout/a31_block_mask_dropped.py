META = {"exercise": "05.TransformerEncoderBlock", "cause": "the mask is not passed to the self-attention",
        "keywords": [r"mask"]}
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
        if self.norm_first:
            x = x + self.dropout1(self.self_attn(self.norm1(x))[0])
            x = x + self.dropout2(self.ffn(self.norm2(x)))
        else:
            x = self.norm1(x + self.dropout1(self.self_attn(x)[0]))
            x = self.norm2(x + self.dropout2(self.ffn(x)))
        return x
