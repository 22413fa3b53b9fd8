META = {"exercise": "02.causal_mask", "correct": True,
        "source": "https://github.com/harvardnlp/annotated-transformer/blob/master/the_annotated_transformer.py",
        "adapted": "subsequent_mask(size) -> its (size, size) slice, moved to `device`"}


def subsequent_mask(size):
    attn_shape = (1, size, size)
    subsequent_mask = torch.triu(torch.ones(attn_shape), diagonal=1).type(torch.uint8)
    return subsequent_mask == 0


def causal_mask(T, device=None):
    return subsequent_mask(T)[0].to(device)
