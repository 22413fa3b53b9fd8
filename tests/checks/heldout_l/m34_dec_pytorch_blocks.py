META = {'exercise': '07.TransformerDecoderBlock',
        'correct': True,
        'source': "nn.TransformerDecoderLayer.forward's structure (_sa_block, _mha_block, _ff_block with dropout1..3)"}


from helpers.blocks.layers import FeedForward, LayerNorm
from helpers.blocks.multihead import MultiHeadAttention


class TransformerDecoderBlock(nn.Module):
    def __init__(self, d_model: int, num_heads: int, d_ff: int, dropout: float = 0.0,
                 norm_first: bool = True):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.cross_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.ffn = FeedForward(d_model, d_ff, dropout)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.norm3 = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)
        self.dropout3 = nn.Dropout(dropout)

    def forward(self, x, memory, tgt_mask=None, memory_mask=None):
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask):
        x = self.self_attn(x, x, x, mask=attn_mask)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask):
        x = self.cross_attn(x, mem, mem, mask=attn_mask)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self.ffn(x))
