META = {'exercise': '05.TransformerEncoderBlock',
        'correct': True,
        'source': "nn.TransformerEncoderLayer.forward's structure (_sa_block / _ff_block helpers)"}


from helpers.blocks.layers import FeedForward, LayerNorm
from helpers.blocks.multihead import MultiHeadAttention


class TransformerEncoderBlock(nn.Module):
    def __init__(self, d_model: int, num_heads: int, d_ff: int, dropout: float = 0.0,
                 norm_first: bool = True, activation: str = "relu"):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.ffn = FeedForward(d_model, d_ff, dropout, activation)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), mask)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, mask))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, mask):
        return self._attn(x, mask)

    def _ff_block(self, x):
        return self.dropout2(self.ffn(x))

    def _attn(self, h, mask):
        out, _ = self.self_attn(h, mask=mask)
        return self.dropout1(out)
