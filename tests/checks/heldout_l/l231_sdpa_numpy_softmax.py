META = {'exercise': '02.scaled_dot_product_attention',
        'cause': 'the softmax goes through NumPy (scores.detach().numpy()): no gradient, and the weights come back on the CPU',
        'keywords': [r'detach', r'no[_ ]grad', r'gradient', r'backward', r'autograd', r'requires_grad', r'\bgrads?\b', r'device', r'\bcpu\b', r'fakegpu', r'cuda', r'\bgpu\b', r'numpy'],
        'kind': 'gradient',
        'single_edit': False}


import numpy as np


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    s = scores.detach().cpu().numpy()
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    weights = torch.from_numpy(e / e.sum(axis=-1, keepdims=True))
    return weights @ v, weights
