META = {'exercise': '03.MultiHeadAttention',
        'cause': "one fused qkv Linear instead of q_proj, k_proj and v_proj: the contract's names are missing and cross-attention cannot use key and value",
        'keywords': [r'q_proj', r'k_proj', r'v_proj', r'attribute', r'qkv', r'state_dict', r'missing'],
        'kind': 'mode/state',
        'single_edit': False}


from helpers.blocks.attention import scaled_dot_product_attention


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model: int, num_heads: int, dropout: float = 0.0, bias: bool = True):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError("d_model must be divisible by num_heads")
        self.d_model, self.num_heads, self.d_head = d_model, num_heads, d_model // num_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def split_heads(self, x):
        B, T, _ = x.shape
        return x.view(B, T, self.num_heads, self.d_head).transpose(1, 2)

    def merge_heads(self, x):
        B, H, T, d = x.shape
        return x.transpose(1, 2).reshape(B, T, H * d)

    def forward(self, query, key=None, value=None, mask=None):
        q, k, v = self.qkv(query).chunk(3, dim=-1)
        q, k, v = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        weights = self.dropout(weights)
        return self.out_proj(self.merge_heads(weights @ v)), weights
