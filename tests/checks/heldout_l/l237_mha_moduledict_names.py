META = {'exercise': '03.MultiHeadAttention',
        'cause': 'the projections live in an nn.ModuleDict (proj.q, proj.k, ...): the names q_proj, k_proj, v_proj, out_proj are missing',
        'keywords': [r'q_proj', r'k_proj', r'out_proj', r'attribute', r'names?', r'state_dict', r'missing'],
        'kind': 'mode/state',
        'single_edit': False}


from helpers.blocks.attention import scaled_dot_product_attention


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model: int, num_heads: int, dropout: float = 0.0, bias: bool = True):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError("d_model must be divisible by num_heads")
        self.d_model, self.num_heads, self.d_head = d_model, num_heads, d_model // num_heads
        self.proj = nn.ModuleDict({name: nn.Linear(d_model, d_model, bias=bias) for name in "qkvo"})
        self.dropout = nn.Dropout(dropout)

    def split_heads(self, x):
        B, T, _ = x.shape
        return x.view(B, T, self.num_heads, self.d_head).transpose(1, 2)

    def merge_heads(self, x):
        B, H, T, d = x.shape
        return x.transpose(1, 2).reshape(B, T, H * d)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        q = self.split_heads(self.proj["q"](query))
        k = self.split_heads(self.proj["k"](key))
        v = self.split_heads(self.proj["v"](value))
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        weights = self.dropout(weights)
        return self.proj["o"](self.merge_heads(weights @ v)), weights
