META = {"exercise": "04.apply_rope", "correct": True,
        "source": "Meta's original LLaMA code: precompute_freqs_cis with torch.polar and view_as_complex on interleaved pairs"}


def apply_rope(x, base=10000.0):
    T, d = x.shape[-2:]
    real = x.dtype  # float32 -> complex64, float64 -> complex128
    freqs = 1.0 / (base ** (torch.arange(0, d, 2, device=x.device, dtype=real)[: d // 2] / d))
    t = torch.arange(T, device=x.device, dtype=real)
    freqs_cis = torch.polar(torch.ones(T, d // 2, device=x.device, dtype=real), torch.outer(t, freqs))
    x_c = torch.view_as_complex(x.reshape(*x.shape[:-1], d // 2, 2).contiguous())
    return torch.view_as_real(x_c * freqs_cis).flatten(-2).to(x.dtype)
