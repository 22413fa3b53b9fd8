META = {'exercise': '03.GroupedQueryAttention',
        'cause': 'repeat tiles the kv heads [k0, k1, k0, k1]: query head h reads kv head h % num_kv_heads instead of h // group',
        'keywords': [r'repeat_interleave', r'repeat\b', r'h ?// ?group', r'pair', r'tile', r'consecutive', r'wrong (kv|key)'],
        'kind': 'math',
        'single_edit': True}


from helpers.blocks.attention import scaled_dot_product_attention


class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model: int, num_heads: int, num_kv_heads: int, bias: bool = True):
        super().__init__()
        if d_model % num_heads != 0 or num_heads % num_kv_heads != 0:
            raise ValueError("d_model must divide by num_heads, and num_heads by num_kv_heads")
        self.num_heads, self.num_kv_heads = num_heads, num_kv_heads
        self.d_head, self.group = d_model // num_heads, num_heads // num_kv_heads
        self.q_proj = nn.Linear(d_model, d_model, bias=bias)
        self.k_proj = nn.Linear(d_model, num_kv_heads * self.d_head, bias=bias)
        self.v_proj = nn.Linear(d_model, num_kv_heads * self.d_head, bias=bias)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)

    def split_heads(self, x, heads):
        B, T, _ = x.shape
        return x.view(B, T, heads, self.d_head).transpose(1, 2)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        q = self.split_heads(self.q_proj(query), self.num_heads)
        k = self.split_heads(self.k_proj(key), self.num_kv_heads)
        v = self.split_heads(self.v_proj(value), self.num_kv_heads)
        k, v = (t.repeat(1, self.group, 1, 1) for t in (k, v))
        out, weights = scaled_dot_product_attention(q, k, v, mask)
        B, H, T, d = out.shape
        return self.out_proj(out.transpose(1, 2).reshape(B, T, H * d)), weights
