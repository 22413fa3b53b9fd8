META = {'exercise': '07.greedy_decode',
        'cause': 'stops as soon as any row has produced EOS instead of every row',
        'keywords': [r'any', r'every row', r'all rows', r'stops? (too )?(early|soon)', r'\ball\(\)'],
        'kind': 'math',
        'single_edit': True}


@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id):
    B = src.size(0)
    tgt = torch.full((B, 1), bos_id, dtype=torch.long, device=src.device)
    done = torch.zeros(B, dtype=torch.bool, device=src.device)
    while tgt.size(1) < max_len:
        next_token = model(src, tgt)[:, -1].argmax(dim=-1)
        next_token = next_token.masked_fill(done, eos_id)
        tgt = torch.cat([tgt, next_token[:, None]], dim=1)
        done |= next_token == eos_id
        if done.any():
            break
    return tgt
