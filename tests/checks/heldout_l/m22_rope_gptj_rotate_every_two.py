META = {'exercise': '04.apply_rope',
        'correct': True,
        'source': "GPT-J's rotate_every_two with sin/cos repeated per pair (repeat_interleave)"}


def rotate_every_two(x):
    x1 = x[..., ::2]
    x2 = x[..., 1::2]
    x = torch.stack((-x2, x1), dim=-1)
    return x.flatten(-2)


def apply_rope(x: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    T, dim = x.shape[-2], x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=x.dtype, device=x.device) / dim))
    sinusoid_inp = torch.einsum("i,j->ij", torch.arange(T, dtype=x.dtype, device=x.device), inv_freq)
    sin = torch.sin(sinusoid_inp).repeat_interleave(2, dim=-1)
    cos = torch.cos(sinusoid_inp).repeat_interleave(2, dim=-1)
    return (x * cos) + (rotate_every_two(x) * sin)
