META = {"exercise": "05.TransformerEncoderBlock", "correct": True,
        "source": "https://github.com/phlippe/uvadlc_notebooks/blob/master/docs/tutorial_notebooks/tutorial6/Transformers_and_MHAttention.ipynb",
        "adapted": "EncoderBlock (post-LN): linear_net's two Linears named ffn.linear1/ffn.linear2 (its Dropout-before-ReLU order kept), "
                   "self_attn is the course's MultiHeadAttention (the tutorial's fused qkv_proj breaks the contract's names), "
                   "a pre-LN branch added for norm_first=True, activation argument added"}
from helpers.blocks import MultiHeadAttention


class _LinearNet(nn.Module):
    def __init__(self, input_dim, dim_feedforward, dropout, activation):
        super().__init__()
        self.linear1 = nn.Linear(input_dim, dim_feedforward)
        self.dropout = nn.Dropout(dropout)
        self.act = nn.ReLU(inplace=True) if activation == "relu" else nn.GELU()
        self.linear2 = nn.Linear(dim_feedforward, input_dim)

    def forward(self, x):
        return self.linear2(self.act(self.dropout(self.linear1(x))))


class TransformerEncoderBlock(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.0, norm_first=True, activation="relu"):
        super().__init__()
        self.norm_first = norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.ffn = _LinearNet(d_model, d_ff, dropout, activation)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask=None):
        if self.norm_first:
            x = x + self.dropout(self.self_attn(self.norm1(x), mask=mask)[0])
            return x + self.dropout(self.ffn(self.norm2(x)))
        attn_out = self.self_attn(x, mask=mask)[0]
        x = x + self.dropout(attn_out)
        x = self.norm1(x)
        linear_out = self.ffn(x)
        x = x + self.dropout(linear_out)
        x = self.norm2(x)
        return x
