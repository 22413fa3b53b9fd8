META = {'exercise': '03.MultiHeadAttention',
        'correct': True,
        'source': 'fairseq MultiheadAttention style: q scaled by d_head**-0.5 before the product, attention inline with masked_fill(-inf) and softmax'}


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model: int, num_heads: int, dropout: float = 0.0, bias: bool = True):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError("d_model must be divisible by num_heads")
        self.d_model, self.num_heads, self.d_head = d_model, num_heads, d_model // num_heads
        self.scaling = self.d_head ** -0.5
        self.k_proj = nn.Linear(d_model, d_model, bias=bias)
        self.v_proj = nn.Linear(d_model, d_model, bias=bias)
        self.q_proj = nn.Linear(d_model, d_model, bias=bias)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def split_heads(self, x):
        return x.unflatten(-1, (self.num_heads, self.d_head)).transpose(1, 2)

    def merge_heads(self, x):
        return x.transpose(1, 2).flatten(-2)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        q = self.split_heads(self.q_proj(query) * self.scaling)
        k = self.split_heads(self.k_proj(key))
        v = self.split_heads(self.v_proj(value))
        attn_weights = torch.matmul(q, k.transpose(-2, -1))
        if mask is not None:
            attn_weights = attn_weights.masked_fill(~mask, float("-inf"))
        attn_weights = attn_weights.softmax(dim=-1)
        attn_probs = self.dropout(attn_weights)
        attn = torch.matmul(attn_probs, v)
        return self.out_proj(self.merge_heads(attn)), attn_probs
