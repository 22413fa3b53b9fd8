META = {'exercise': '07b.temperature_probs',
        'cause': 'multiplies the logits by the temperature instead of dividing',
        'keywords': [r'multipl', r'divid\w* by (the number of|all|every)', r'invers', r'1 ?/ ?temperature'],
        'kind': 'math',
        'single_edit': True}


def temperature_probs(logits, temperature):
    if temperature == 0:
        return F.one_hot(logits.argmax(dim=-1), logits.size(-1)).to(logits.dtype)
    return torch.softmax(logits * temperature, dim=-1)
