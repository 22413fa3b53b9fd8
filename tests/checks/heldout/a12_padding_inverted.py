META = {"exercise": "02.padding_mask", "cause": "True at the padding instead of at real tokens",
        "keywords": [r"invert", r"opposite", r"True at (real|pad)", r"real tokens", r"convention", r"=="]}


def padding_mask(tokens, pad_id):
    return (tokens == pad_id)[:, None, None, :]
