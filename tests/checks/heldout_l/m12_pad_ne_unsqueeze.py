META = {'exercise': '02.padding_mask',
        'correct': True,
        'source': 'tokens.ne(pad_id) with two unsqueezes (fairseq/HF style)'}


def padding_mask(tokens, pad_id):
    return tokens.ne(pad_id).unsqueeze(1).unsqueeze(2)
