META = {"exercise": "02.causal_mask", "correct": True,
        "source": "comparison of position grids (arange[None, :] <= arange[:, None]), as in many GPT implementations"}


def causal_mask(T, device=None):
    i = torch.arange(T, device=device)
    return i[None, :] <= i[:, None]
