META = {'exercise': '07b.temperature_probs',
        'cause': 'no case for temperature 0: logits / 0 gives inf and NaN',
        'keywords': [r'temperature ?(==|=|of) ?0', r'zero', r'greedy', r'one-?hot', r'nan', r'divi\w* by (0|zero)'],
        'kind': 'math',
        'single_edit': False}


def temperature_probs(logits, temperature):
    return torch.softmax(logits / temperature, dim=-1)
