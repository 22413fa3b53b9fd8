META = {'exercise': '03.MultiHeadAttention',
        'correct': True,
        'source': "einsum heads (no view/transpose in forward), attention from the course's function"}


from helpers.blocks.attention import scaled_dot_product_attention


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model: int, num_heads: int, dropout: float = 0.0, bias: bool = True):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError("d_model must be divisible by num_heads")
        self.d_model, self.num_heads, self.d_head = d_model, num_heads, d_model // num_heads
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (
            nn.Linear(d_model, d_model, bias=bias) for _ in range(4))
        self.dropout = nn.Dropout(dropout)

    def split_heads(self, x):
        B, T, _ = x.shape
        return x.reshape(B, T, self.num_heads, self.d_head).permute(0, 2, 1, 3)

    def merge_heads(self, x):
        B, H, T, d = x.shape
        return x.permute(0, 2, 1, 3).contiguous().view(B, T, H * d)

    def forward(self, query, key=None, value=None, mask=None):
        if key is None:
            key = query
        if value is None:
            value = key
        q, k, v = (self.split_heads(p(t)) for p, t in ((self.q_proj, query), (self.k_proj, key), (self.v_proj, value)))
        _, w = scaled_dot_product_attention(q, k, v, mask)
        w = self.dropout(w)
        out = torch.einsum("bhqk,bhkd->bhqd", w, v)
        return self.out_proj(self.merge_heads(out)), w
