META = {'exercise': '04.apply_rope',
        'cause': 'rotates each pair in place in a loop: the second feature of a pair is computed from the already rotated first one',
        'keywords': [r'in[- ]?place', r'overwr', r'already rotated', r'both (features|halves)', r'original', r'sequential'],
        'kind': 'math',
        'single_edit': False}


def apply_rope(x: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    x = x.clone()
    T, d = x.shape[-2], x.shape[-1]
    pos = torch.arange(T, dtype=x.dtype, device=x.device)
    for i in range(d // 2):
        theta = pos * base ** (-2 * i / d)
        c, s = theta.cos(), theta.sin()
        x[..., 2 * i] = x[..., 2 * i] * c - x[..., 2 * i + 1] * s
        x[..., 2 * i + 1] = x[..., 2 * i] * s + x[..., 2 * i + 1] * c
    return x
