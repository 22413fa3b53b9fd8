META = {"exercise": "07.TransformerDecoderBlock", "correct": True,
        "source": "https://github.com/harvardnlp/annotated-transformer/blob/master/the_annotated_transformer.py",
        "adapted": "DecoderLayer + SublayerConnection: sublayer[i].norm named norm1..3 (nn.LayerNorm: the tutorial's own LayerNorm "
                   "is not the contract's), self_attn/cross_attn are the course's MultiHeadAttention, ffn is PositionwiseFeedForward "
                   "with linear1/linear2, argument order (x, memory, tgt_mask, memory_mask), post-LN branch added for norm_first=False"}
from helpers.blocks import MultiHeadAttention


class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.linear2(self.dropout(self.linear1(x).relu()))


class TransformerDecoderBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True):
        super().__init__()
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.cross_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.ffn = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1, self.norm2, self.norm3 = (nn.LayerNorm(d_model) for _ in range(3))
        self.dropout = nn.Dropout(dropout)

    def sublayer(self, norm, x, fn):
        if self.norm_first:
            return x + self.dropout(fn(norm(x)))
        return norm(x + self.dropout(fn(x)))

    def forward(self, x, memory, tgt_mask=None, memory_mask=None):
        m = memory
        x = self.sublayer(self.norm1, x, lambda x: self.self_attn(x, x, x, tgt_mask)[0])
        x = self.sublayer(self.norm2, x, lambda x: self.cross_attn(x, m, m, memory_mask)[0])
        return self.sublayer(self.norm3, x, self.ffn)
