META = {'exercise': '07.greedy_decode',
        'cause': 'the output starts as a float tensor (torch.ones * bos_id): token ids must be long',
        'keywords': [r'\blong\b', r'dtype', r'\bfloat\b(?!\()', r'integer'],
        'kind': 'type',
        'single_edit': True}


@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id):
    B = src.size(0)
    tgt = torch.ones(B, 1, device=src.device) * bos_id
    done = torch.zeros(B, dtype=torch.bool, device=src.device)
    while tgt.size(1) < max_len:
        next_token = model(src, tgt)[:, -1].argmax(dim=-1)
        next_token = next_token.masked_fill(done, eos_id)
        tgt = torch.cat([tgt, next_token[:, None]], dim=1)
        done |= next_token == eos_id
        if done.all():
            break
    return tgt
