META = {"exercise": "02.padding_mask",
        "cause": "marks the padding positions True (tokens == pad_id) instead of the real tokens",
        "keywords": [r"flip", r"invert", r"==", r"pad.{0,30}true", r"true.{0,30}(real|pad)", r"convention"]}


def padding_mask(tokens, pad_id):
    return (tokens == pad_id).unsqueeze(1).unsqueeze(1)
