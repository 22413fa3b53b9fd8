META = {"exercise": "03.GroupedQueryAttention",
        "cause": 'the attention scores are scaled by 1/sqrt(d_model) instead of 1/sqrt(d_head)',
        "keywords": [r'sqrt|scal|d_head|d_model|temperature']}

from helpers.blocks.attention import scaled_dot_product_attention


class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model, num_heads, num_kv_heads, bias=True):
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
        k = k.repeat_interleave(self.group, dim=1)
        v = v.repeat_interleave(self.group, dim=1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head * self.num_heads)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = scores.softmax(dim=-1)
        out = weights @ v
        B, H, T_q, d_head = out.shape
        merged = out.transpose(1, 2).reshape(B, T_q, H * d_head)
        return self.out_proj(merged), weights
