META = {"exercise": "03.GroupedQueryAttention", "correct": True,
        "source": "no repeat: queries reshaped to (B, H_kv, group, T, d) and broadcast against one kv head per group (as in memory-efficient GQA kernels / JAX implementations)"}


class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model, num_heads, num_kv_heads, bias=True):
        super().__init__()
        if d_model % num_heads != 0 or num_heads % num_kv_heads != 0:
            raise ValueError("bad sizes")
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
        q = self.split_heads(self.q_proj(query), self.num_heads)          # (B, H, T_q, d)
        k = self.split_heads(self.k_proj(key), self.num_kv_heads)          # (B, H_kv, T_k, d)
        v = self.split_heads(self.v_proj(value), self.num_kv_heads)
        T_k = k.shape[2]
        qg = q.reshape(B, self.num_kv_heads, self.group, T_q, self.d_head)  # heads h = kv*group + g
        scores = qg @ k[:, :, None].transpose(-2, -1) / math.sqrt(self.d_head)  # (B, H_kv, g, T_q, T_k)
        scores = scores.reshape(B, self.num_heads, T_q, T_k)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = scores.softmax(dim=-1)
        out = weights.reshape(B, self.num_kv_heads, self.group, T_q, T_k) @ v[:, :, None]
        out = out.reshape(B, self.num_heads, T_q, self.d_head).transpose(1, 2).reshape(B, T_q, -1)
        return self.out_proj(out), weights
