META = {"exercise": "02.causal_mask", "cause": "uses tril(-1), a strictly lower-triangular mask: a token may not attend to itself (the diagonal is False) and row 0 allows no key at all", "keywords": [r"diagonal", r"itself", r"tril\(-1\)|diagonal ?= ?-1", r"strict", r"off[- ]by[- ]one", r"j ?<= ?i|key ?<= ?query"]}


def causal_mask(T, device=None):
    # a token may only look at earlier tokens
    return torch.ones(T, T, dtype=torch.bool, device=device).tril(-1)
