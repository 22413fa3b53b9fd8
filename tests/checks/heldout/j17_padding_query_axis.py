META = {"exercise": "02.padding_mask",
        "cause": "puts the token axis on the query dimension, shape (B, 1, T, 1), so padded queries are blocked instead of padded keys",
        "keywords": [r"\(B, ?1, ?T, ?1\)", r"query", r"key", r"shape", r"axis|axes"]}


def padding_mask(tokens, pad_id):
    return (tokens != pad_id)[:, None, :, None]
