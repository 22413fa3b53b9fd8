META = {"exercise": "03.MultiHeadAttention", "cause": "split_heads views the features as (d_head, H) instead of (H, d_head), so each head gets every H-th feature (interleaved) rather than a contiguous slice; merge_heads undoes it consistently, so shapes are right but the heads do not match nn.MultiheadAttention's", "keywords": [r"split", r"interleav", r"contiguous", r"\(B, ?T, ?H, ?d_head\)", r"slice", r"head order|order of the (features|heads)"]}

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
        # (B, T, d_head, H) -> (B, H, T, d_head)
        return x.reshape(B, T, self.d_head, self.num_heads).permute(0, 3, 1, 2)

    def merge_heads(self, x):
        B, H, T, d_head = x.shape
        # (B, H, T, d_head) -> (B, T, d_head, H) -> (B, T, d_model)
        return x.permute(0, 2, 3, 1).reshape(B, T, d_head * H)

    def forward(self, query, key=None, value=None, mask=None):
        if key is None:
            key = query
        if value is None:
            value = key
        q = self.split_heads(self.q_proj(query))
        k = self.split_heads(self.k_proj(key))
        v = self.split_heads(self.v_proj(value))
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        weights = self.dropout(weights)
        out = self.merge_heads(weights @ v)
        return self.out_proj(out), weights
