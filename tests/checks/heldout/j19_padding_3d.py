META = {"exercise": "02.padding_mask",
        "cause": "adds only one dimension, (B, 1, T), which broadcasts the batch against the heads instead of giving (B, 1, 1, T)",
        "keywords": [r"\(B, ?1, ?T\)", r"shape", r"dimension", r"broadcast", r"unsqueeze", r"ndim|4-?d|3-?d"]}


def padding_mask(tokens, pad_id):
    return (tokens != pad_id)[:, None, :]
