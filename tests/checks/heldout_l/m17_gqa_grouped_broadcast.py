META = {'exercise': '03.GroupedQueryAttention',
        'correct': True,
        'source': 'queries grouped as (B, H_kv, group, T, d) against kv heads broadcast over the group: no repeat at all'}


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
        return x.reshape(B, T, heads, self.d_head).transpose(1, 2)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        B, T_q, _ = query.shape
        q = self.split_heads(self.q_proj(query), self.num_heads)
        q = q.reshape(B, self.num_kv_heads, self.group, T_q, self.d_head)
        k = self.split_heads(self.k_proj(key), self.num_kv_heads)[:, :, None]
        v = self.split_heads(self.v_proj(value), self.num_kv_heads)[:, :, None]
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        scores = scores.flatten(1, 2)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = scores.softmax(dim=-1)
        out = (weights.unflatten(1, (self.num_kv_heads, self.group)) @ v).flatten(1, 2)
        return self.out_proj(out.transpose(1, 2).reshape(B, T_q, -1)), weights
