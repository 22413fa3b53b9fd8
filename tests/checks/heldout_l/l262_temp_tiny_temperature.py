META = {'exercise': '07b.temperature_probs',
        'cause': 'treats temperature 0 as 1e-8: tied maxima split the probability instead of all of it going to the first',
        'keywords': [r'tie', r'(z|weights) first', r'one-?hot', r'greedy', r'split'],
        'kind': 'math',
        'single_edit': False}


def temperature_probs(logits, temperature):
    t = max(temperature, 1e-8)
    return torch.softmax(logits / t, dim=-1)
