META = {'exercise': '03.GroupedQueryAttention',
        'correct': True,
        'source': 'LLaMA / Hugging Face repeat_kv: hidden_states[:, :, None].expand(B, n_kv, n_rep, T, d).reshape(B, n_kv * n_rep, T, d)'}


from helpers.blocks.attention import scaled_dot_product_attention


def repeat_kv(hidden_states: torch.Tensor, n_rep: int) -> torch.Tensor:
    batch, num_key_value_heads, slen, head_dim = hidden_states.shape
    if n_rep == 1:
        return hidden_states
    hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep, slen, head_dim)
    return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, head_dim)


class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model: int, num_heads: int, num_kv_heads: int, bias: bool = True):
        super().__init__()
        if d_model % num_heads != 0 or num_heads % num_kv_heads != 0:
            raise ValueError("d_model must divide by num_heads, and num_heads by num_kv_heads")
        self.num_heads, self.num_kv_heads = num_heads, num_kv_heads
        self.d_head, self.group = d_model // num_heads, num_heads // num_kv_heads
        self.q_proj = nn.Linear(d_model, num_heads * self.d_head, bias=bias)
        self.k_proj = nn.Linear(d_model, num_kv_heads * self.d_head, bias=bias)
        self.v_proj = nn.Linear(d_model, num_kv_heads * self.d_head, bias=bias)
        self.out_proj = nn.Linear(num_heads * self.d_head, d_model, bias=bias)

    def split_heads(self, x, heads):
        return x.view(*x.shape[:-1], heads, self.d_head).transpose(1, 2)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = key if value is None else value
        bsz, q_len, _ = query.shape
        q = self.split_heads(self.q_proj(query), self.num_heads)
        k = repeat_kv(self.split_heads(self.k_proj(key), self.num_kv_heads), self.group)
        v = repeat_kv(self.split_heads(self.v_proj(value), self.num_kv_heads), self.group)
        attn_output, attn_weights = scaled_dot_product_attention(q, k, v, mask)
        attn_output = attn_output.transpose(1, 2).reshape(bsz, q_len, -1)
        return self.out_proj(attn_output), attn_weights
