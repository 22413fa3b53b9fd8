META = {'exercise': '06.masked_cross_entropy',
        'cause': 'adds up the per-position losses as Python floats and returns torch.tensor(...): no gradient, float32 on the CPU',
        'keywords': [r'detach', r'no[_ ]grad', r'gradient', r'backward', r'autograd', r'requires_grad', r'\bgrads?\b', r'device', r'\bcpu\b', r'fakegpu', r'cuda', r'\bgpu\b', r'dtype', r'precision', r'double', r'\bkeeps? (its |the )?type', r'(returns?|returned|came back|comes back|gives?|made|built) (as |in )?float(16|32|64)', r'float(32|64) (instead|rather|output|result|for)', r'python float', r'item\(\)'],
        'kind': 'gradient',
        'single_edit': False}


def masked_cross_entropy(logits, targets, pad_id, label_smoothing=0.0):
    V = logits.size(-1)
    log_probs = logits.log_softmax(-1).reshape(-1, V)
    total, count = 0.0, 0
    for row, t in zip(log_probs, targets.reshape(-1).tolist()):
        if t == pad_id:
            continue
        total += -(1 - label_smoothing) * row[t].item() - label_smoothing * row.mean().item()
        count += 1
    return torch.tensor(total / count)
