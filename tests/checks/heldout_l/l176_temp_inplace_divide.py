META = {'exercise': '07b.temperature_probs',
        'cause': "divides the logits in place (logits /= temperature): the caller's logits are changed",
        'keywords': [r'in[- ]?place', r'mutat', r'(chang|modif|overwr|alter)\w*\W+(\w+\W+){0,4}(input|argument|caller|given)', r'(input|argument|caller)\w*\W+(\w+\W+){0,4}(chang|modif|overwr|alter)'],
        'kind': 'mode/state',
        'single_edit': False}


def temperature_probs(logits, temperature):
    if temperature == 0:
        return F.one_hot(logits.argmax(dim=-1), logits.size(-1)).to(logits.dtype)
    logits /= temperature
    return torch.softmax(logits, dim=-1)
