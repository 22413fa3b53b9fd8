META = {"exercise": "02.padding_mask",
        "cause": "returns the (B, T) comparison without adding the head and query dimensions",
        "keywords": [r"\(B, ?1, ?1, ?T\)", r"shape", r"dimension", r"unsqueeze|None"]}


def padding_mask(tokens, pad_id):
    return tokens != pad_id
