META = {"exercise": "02.padding_mask",
        "cause": "returns an integer (0/1) mask via .long() instead of a boolean tensor",
        "keywords": [r"bool", r"dtype", r"int|long"]}


def padding_mask(tokens, pad_id):
    return (tokens != pad_id).long().unsqueeze(1).unsqueeze(2)
