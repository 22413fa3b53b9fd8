META = {"exercise": "03.MultiHeadAttention", "correct": True,
        "source": "einsum attention with rearrange-style split/merge via unflatten/flatten and permute (written like x-transformers / lucidrains style)"}


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError("d_model must be divisible by num_heads")
        self.d_model, self.num_heads, self.d_head = d_model, num_heads, d_model // num_heads
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (
            nn.Linear(d_model, d_model, bias=bias) for _ in range(4))
        self.dropout = nn.Dropout(dropout)

    def split_heads(self, x):
        return x.unflatten(-1, (self.num_heads, self.d_head)).permute(0, 2, 1, 3)

    def merge_heads(self, x):
        return x.permute(0, 2, 1, 3).flatten(-2)

    def forward(self, query, key=None, value=None, mask=None):
        if key is None:
            key = query
        if value is None:
            value = key
        q, k, v = (self.split_heads(p(t)) for p, t in ((self.q_proj, query), (self.k_proj, key), (self.v_proj, value)))
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(self.d_head)
        if mask is not None:
            scores = scores.masked_fill(mask.logical_not(), float("-inf"))
        attn = self.dropout(scores.softmax(-1))
        out = torch.einsum("bhqk,bhkd->bhqd", attn, v)
        return self.out_proj(self.merge_heads(out)), attn
