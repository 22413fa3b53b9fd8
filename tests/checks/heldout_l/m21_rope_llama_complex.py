META = {'exercise': '04.apply_rope',
        'correct': True,
        'source': "Meta's LLaMA apply_rotary_emb: precompute_freqs_cis with torch.polar, view_as_complex on (…, d/2, 2) pairs"}


def apply_rope(x: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    T, dim = x.shape[-2], x.shape[-1]
    freqs = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=x.dtype, device=x.device)[: (dim // 2)] / dim))
    t = torch.arange(T, device=x.device, dtype=x.dtype)
    freqs = torch.outer(t, freqs)
    freqs_cis = torch.polar(torch.ones_like(freqs), freqs)
    x_ = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2).contiguous())
    x_out = torch.view_as_real(x_ * freqs_cis).flatten(-2)
    return x_out.type_as(x)
