META = {"exercise": "03.MultiHeadAttention", "correct": True, "source": "separate q/k/v/out projections kept, heads split with unflatten/movedim, attention written with einsum and its own masked softmax instead of the helper"}


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.d_model, self.num_heads, self.d_head = d_model, num_heads, d_model // num_heads
        for name in ("q_proj", "k_proj", "v_proj", "out_proj"):
            setattr(self, name, nn.Linear(d_model, d_model, bias=bias))
        self.dropout = nn.Dropout(dropout)

    def split_heads(self, x):
        return x.unflatten(-1, (self.num_heads, self.d_head)).movedim(-2, 1)   # (B, H, T, d_head)

    def merge_heads(self, x):
        return x.movedim(1, -2).flatten(-2)                                      # (B, T, d_model)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        q, k, v = (self.split_heads(p(t)) for p, t in
                   ((self.q_proj, query), (self.k_proj, key), (self.v_proj, value)))
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) * self.d_head ** -0.5
        if mask is not None:
            scores = scores.masked_fill(mask.logical_not(), float("-inf"))
        scores = scores - scores.amax(dim=-1, keepdim=True)
        e = scores.exp()
        weights = self.dropout(e / e.sum(dim=-1, keepdim=True))
        out = torch.einsum("bhqk,bhkd->bhqd", weights, v)
        return self.out_proj(self.merge_heads(out)), weights
