META = {"exercise": "08.sliding_window_mask",
        "cause": "builds the position grids without device=, so the mask is always on the CPU",
        "keywords": [r"device", r"cpu"]}


def sliding_window_mask(T, window, causal=False, device=None):
    i = torch.arange(T)[:, None]
    j = torch.arange(T)[None, :]
    mask = (i - j).abs() <= window
    if causal:
        mask = mask & (j <= i)
    return mask
