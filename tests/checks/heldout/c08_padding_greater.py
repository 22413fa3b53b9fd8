META = {"exercise": "02.padding_mask", "cause": "tests tokens > pad_id instead of tokens != pad_id, so every real token whose id is below pad_id is treated as padding (only right when pad_id is the smallest id)", "keywords": [r"!=|not equal", r"greater than|> ?pad_id", r"below|smaller|less than|lower id"]}


def padding_mask(tokens, pad_id):
    # the padding id is the lowest id, real tokens come after it
    return (tokens > pad_id).unsqueeze(1).unsqueeze(2)
