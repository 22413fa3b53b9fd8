META = {'exercise': '03.MultiHeadAttention',
        'cause': 'returns the weights before dropout, not the ones multiplied with v',
        'keywords': [r'dropout (is |was )?(not |never )?(applied|active|used|on|off|missing|ignored|placed|acts|stays|remains)', r'(no|missing|without|skips?|ignor\w*|wrong|extra|never appl\w*|not appl\w*) (the )?dropout', r'dropout (acts |is applied |applied |runs )?(in eval|instead of|before|after|in the wrong place|on the (output|input|weights))', r'(before|after|instead of) (the )?dropout', r'before (the )?(dropout|add|sum|computing|correction|alpha|rescal|scal)'],
        'kind': 'mode/state',
        'single_edit': False}


from helpers.blocks.attention import scaled_dot_product_attention


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model: int, num_heads: int, dropout: float = 0.0, bias: bool = True):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.d_model, self.num_heads, self.d_head = d_model, num_heads, d_model // num_heads
        self.q_proj = nn.Linear(d_model, d_model, bias=bias)
        self.k_proj = nn.Linear(d_model, d_model, bias=bias)
        self.v_proj = nn.Linear(d_model, d_model, bias=bias)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def split_heads(self, x):
        B, T, _ = x.shape
        return x.view(B, T, self.num_heads, self.d_head).transpose(1, 2)

    def merge_heads(self, x):
        B, H, T, d_head = x.shape
        return x.transpose(1, 2).reshape(B, T, H * d_head)

    def forward(self, query, key=None, value=None, mask=None):
        if key is None:
            key = query
        if value is None:
            value = key
        q = self.split_heads(self.q_proj(query))
        k = self.split_heads(self.k_proj(key))
        v = self.split_heads(self.v_proj(value))
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        out = self.dropout(weights) @ v
        return self.out_proj(self.merge_heads(out)), weights
