META = {"exercise": "02.padding_mask",
        "cause": "tokens == pad_id: True at the padding instead of at the real tokens (the blocked-positions convention)",
        "keywords": [r"invert", r"True at (real|pad)", r"==\s*pad|!=\s*pad", r"convention", r"real tokens"]}


def padding_mask(tokens, pad_id):
    return (tokens == pad_id)[:, None, None, :]
