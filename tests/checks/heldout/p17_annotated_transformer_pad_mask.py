META = {"exercise": "02.padding_mask", "correct": True,
        "source": "https://github.com/harvardnlp/annotated-transformer/blob/master/the_annotated_transformer.py",
        "adapted": "Batch.src_mask = (src != pad).unsqueeze(-2) gives (B, 1, T); one more unsqueeze(1) for the contract's (B, 1, 1, T)"}


def padding_mask(tokens, pad_id):
    return (tokens != pad_id).unsqueeze(-2).unsqueeze(1)
