META = {"exercise": "03.MultiHeadAttention", "cause": "merge_heads reshapes (B, H, T, d_head) straight to (B, T, d_model) without transposing back: heads and positions are mixed",
        "keywords": [r"merge", r"transpose", r"heads?", r"reshape", r"order", r"permut"]}


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, dropout=0.0, bias=True):
        super().__init__()
        self.d_model, self.num_heads, self.d_head = d_model, num_heads, d_model // num_heads
        self.q_proj = nn.Linear(d_model, d_model, bias=bias)
        self.k_proj = nn.Linear(d_model, d_model, bias=bias)
        self.v_proj = nn.Linear(d_model, d_model, bias=bias)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        B, Tq, _ = query.shape
        q = self.q_proj(query).view(B, Tq, self.num_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(key).view(B, -1, self.num_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(value).view(B, -1, self.num_heads, self.d_head).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = self.dropout(scores.softmax(dim=-1))
        out = (weights @ v).reshape(B, Tq, self.d_model)
        return self.out_proj(out), weights
