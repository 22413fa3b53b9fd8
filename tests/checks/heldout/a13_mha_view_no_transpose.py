META = {"exercise": "03.MultiHeadAttention", "cause": "split_heads views (B, T, d_model) as (B, H, T, d_head) directly instead of (B, T, H, d_head) then transpose",
        "keywords": [r"split", r"heads?", r"transpose", r"view", r"reshape", r"permut"]}


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, dropout=0.0, bias=True):
        super().__init__()
        self.num_heads, self.d_head = num_heads, d_model // num_heads
        self.q_proj = nn.Linear(d_model, d_model, bias=bias)
        self.k_proj = nn.Linear(d_model, d_model, bias=bias)
        self.v_proj = nn.Linear(d_model, d_model, bias=bias)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        B, Tq, D = query.shape
        Tk = key.size(1)
        q = self.q_proj(query).view(B, self.num_heads, Tq, self.d_head)
        k = self.k_proj(key).view(B, self.num_heads, Tk, self.d_head)
        v = self.v_proj(value).view(B, self.num_heads, Tk, self.d_head)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = self.dropout(scores.softmax(-1))
        out = (weights @ v).transpose(1, 2).reshape(B, Tq, D)
        return self.out_proj(out), weights
