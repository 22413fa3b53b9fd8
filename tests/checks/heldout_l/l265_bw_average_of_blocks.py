META = {'exercise': '08.blockwise_attention',
        'cause': "softmaxes each block on its own and averages the blocks' outputs: no running max and sum across blocks",
        'keywords': [r'running', r'online', r'across blocks', r'rescal', r'per[- ]block', r'normali[sz]'],
        'kind': 'math',
        'single_edit': False}


def blockwise_attention(q, k, v, block_size=64):
    out = 0
    n = 0
    for start in range(0, k.size(-2), block_size):
        s = q @ k[..., start:start + block_size, :].transpose(-2, -1) / math.sqrt(q.size(-1))
        w = (s - s.amax(-1, keepdim=True)).exp()
        w = w / w.sum(-1, keepdim=True)
        out = out + w @ v[..., start:start + block_size, :]
        n += 1
    return out / n
