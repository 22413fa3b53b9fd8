META = {'exercise': '07b.temperature_probs',
        'cause': "the greedy one-hot is a long tensor: not the logits' dtype",
        'keywords': [r'dtype', r'\blong\b', r'int64', r'\bfloat\b(?!\()'],
        'kind': 'device',
        'single_edit': True}


def temperature_probs(logits, temperature):
    if temperature == 0:
        return F.one_hot(logits.argmax(dim=-1), logits.size(-1))
    return torch.softmax(logits / temperature, dim=-1)
