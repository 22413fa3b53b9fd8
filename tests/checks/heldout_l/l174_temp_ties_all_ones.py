META = {'exercise': '07b.temperature_probs',
        'cause': 'greedy case marks every logit equal to the max: tied rows get several ones',
        'keywords': [r'tie', r'(z|weights) first', r'several', r'argmax', r'sum to 1'],
        'kind': 'math',
        'single_edit': True}


def temperature_probs(logits, temperature):
    if temperature == 0:
        return (logits == logits.amax(dim=-1, keepdim=True)).to(logits.dtype)
    return torch.softmax(logits / temperature, dim=-1)
