META = {"exercise": "02.padding_mask", "cause": "adds the singleton dimensions in the wrong place, returning (B, 1, T, 1), which blocks padded queries instead of padded keys", "keywords": [r"\(B, ?1, ?T, ?1\)", r"\(B, ?1, ?1, ?T\)", r"quer(y|ies)", r"padded keys", r"wrong (axis|axes|dimension)"]}


def padding_mask(tokens, pad_id):
    real = tokens != pad_id           # (B, T)
    return real[:, None, :, None]
