META = {'exercise': '07b.temperature_probs',
        'cause': 'the greedy one-hot is built with torch.zeros(logits.shape): float32 on the CPU',
        'keywords': [r'device', r'\bcpu\b', r'fakegpu', r'cuda', r'\bgpu\b', r'dtype', r'precision', r'double', r'\bkeeps? (its |the )?type', r'(returns?|returned|came back|comes back|gives?|made|built) (as |in )?float(16|32|64)', r'float(32|64) (instead|rather|output|result|for)'],
        'kind': 'device',
        'single_edit': True}


def temperature_probs(logits, temperature):
    if temperature == 0:
        return torch.zeros(logits.shape).scatter(-1, logits.argmax(dim=-1, keepdim=True), 1.0)
    return torch.softmax(logits / temperature, dim=-1)
