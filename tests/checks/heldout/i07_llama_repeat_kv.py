META = {"exercise": "03.GroupedQueryAttention", "correct": True,
        "source": "Meta LLaMA / HF LlamaAttention style: repeat_kv via expand+reshape, own einsum attention with torch.where mask"}


def repeat_kv(x, n_rep):
    """(B, H_kv, T, d) -> (B, H_kv * n_rep, T, d), each kv head repeated n_rep times in a row."""
    B, H_kv, T, d = x.shape
    if n_rep == 1:
        return x
    return x[:, :, None, :, :].expand(B, H_kv, n_rep, T, d).reshape(B, H_kv * n_rep, T, d)


class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model, num_heads, num_kv_heads, bias=True):
        super().__init__()
        if d_model % num_heads != 0 or num_heads % num_kv_heads != 0:
            raise ValueError("bad sizes")
        self.num_heads, self.num_kv_heads = num_heads, num_kv_heads
        self.d_head, self.group = d_model // num_heads, num_heads // num_kv_heads
        self.q_proj = nn.Linear(d_model, num_heads * self.d_head, bias=bias)
        self.k_proj = nn.Linear(d_model, num_kv_heads * self.d_head, bias=bias)
        self.v_proj = nn.Linear(d_model, num_kv_heads * self.d_head, bias=bias)
        self.out_proj = nn.Linear(num_heads * self.d_head, d_model, bias=bias)

    def split_heads(self, x, heads):
        return x.unflatten(-1, (heads, self.d_head)).permute(0, 2, 1, 3)

    def forward(self, query, key=None, value=None, mask=None):
        if key is None:
            key = query
        if value is None:
            value = key
        q = self.split_heads(self.q_proj(query), self.num_heads)
        k = repeat_kv(self.split_heads(self.k_proj(key), self.num_kv_heads), self.group)
        v = repeat_kv(self.split_heads(self.v_proj(value), self.num_kv_heads), self.group)
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) * self.d_head ** -0.5
        if mask is not None:
            scores = torch.where(mask, scores, float("-inf"))
        weights = F.softmax(scores, dim=-1)
        out = torch.einsum("bhqk,bhkd->bhqd", weights, v)
        return self.out_proj(out.permute(0, 2, 1, 3).flatten(2)), weights
