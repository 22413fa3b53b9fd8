META = {"exercise": "04.apply_rope", "correct": True,
        "source": "GPT-J / HF codegen style: rotate_every_two with sin/cos repeated per pair (repeat_interleave)"}


def rotate_every_two(x):
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


def apply_rope(x, base=10000.0):
    T, d = x.shape[-2], x.shape[-1]
    inv_freq = 1.0 / base ** (torch.arange(0, d, 2, dtype=x.dtype, device=x.device) / d)
    sinusoid = torch.einsum("i,j->ij", torch.arange(T, dtype=x.dtype, device=x.device), inv_freq)
    sin = sinusoid.sin().repeat_interleave(2, dim=-1)
    cos = sinusoid.cos().repeat_interleave(2, dim=-1)
    return x * cos + rotate_every_two(x) * sin
