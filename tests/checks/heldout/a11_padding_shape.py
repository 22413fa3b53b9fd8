META = {"exercise": "02.padding_mask", "cause": "returns (B, T) without the two singleton dims, so it does not broadcast over heads and queries",
        "keywords": [r"shape", r"\(B, 1, 1, T\)", r"broadcast", r"unsqueeze", r"dims?"]}


def padding_mask(tokens, pad_id):
    return tokens != pad_id
