META = {"exercise": "03.MultiHeadAttention", "cause": "the per-head scores are divided by sqrt(d_model) instead of sqrt(d_head), so every head's softmax is too flat by a factor sqrt(num_heads)", "keywords": [r"d_model", r"d_head", r"sqrt", r"scal", r"num_heads"]}


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
        return x.view(B, T, self.num_heads, self.d_head).transpose(1, 2)

    def merge_heads(self, x):
        B, H, T, d_head = x.shape
        return x.transpose(1, 2).reshape(B, T, H * d_head)

    def forward(self, query, key=None, value=None, mask=None):
        if key is None:
            key = query
        if value is None:
            value = key
        q = self.split_heads(self.q_proj(query))      # (B, H, T_q, d_head)
        k = self.split_heads(self.k_proj(key))        # (B, H, T_k, d_head)
        v = self.split_heads(self.v_proj(value))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_model)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = self.dropout(torch.softmax(scores, dim=-1))
        out = self.merge_heads(weights @ v)
        return self.out_proj(out), weights
