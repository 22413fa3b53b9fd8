META = {"exercise": "02.padding_mask", "correct": True,
        "source": "torch.ne plus view(B, 1, 1, T), as in the Annotated Transformer's src_mask (there (B, 1, T); here with the head dimension)"}


def padding_mask(tokens, pad_id):
    B, T = tokens.shape
    return torch.ne(tokens, pad_id).view(B, 1, 1, T)
