META = {"exercise": "02.padding_mask",
        "cause": "adds the new dimensions in the wrong place, (B, 1, T, 1): the mask then blocks padded queries instead of padded keys",
        "keywords": [r"\(B, ?1, ?1, ?T\)", r"shape", r"quer(y|ies)", r"unsqueeze|None"]}


def padding_mask(tokens, pad_id):
    return (tokens != pad_id)[:, None, :, None]
