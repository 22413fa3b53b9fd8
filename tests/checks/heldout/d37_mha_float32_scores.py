META = {"exercise": "03.MultiHeadAttention",
        "cause": "computes the attention in float32 (q.float(), k.float()) and casts the weights back, so a float64 module loses precision",
        "keywords": [r"float64", r"float32", r"precision", r"dtype", r"double"]}

from helpers.blocks.attention import scaled_dot_product_attention

class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, dropout=0.0, bias=True):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.d_model, self.num_heads, self.d_head = d_model, num_heads, d_model // num_heads
        self.q_proj = nn.Linear(d_model, d_model, bias=bias)
        self.k_proj = nn.Linear(d_model, d_model, bias=bias)
        self.v_proj = nn.Linear(d_model, d_model, bias=bias)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def split_heads(self, x):
        B, T, _ = x.shape
        return x.view(B, T, self.num_heads, self.d_head).transpose(1, 2)  # (B, H, T, d_head)

    def merge_heads(self, x):
        B, H, T, d_head = x.shape
        return x.transpose(1, 2).reshape(B, T, H * d_head)  # (B, T, d_model)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        q = self.split_heads(self.q_proj(query))
        k = self.split_heads(self.k_proj(key))
        v = self.split_heads(self.v_proj(value))
        _, weights = scaled_dot_product_attention(q.float(), k.float(), v.float(), mask)
        weights = weights.to(v.dtype)
        weights = self.dropout(weights)
        out = self.merge_heads(weights @ v)
        return self.out_proj(out), weights
