META = {'exercise': '07.greedy_decode',
        'cause': 'finished rows are not kept at eos_id: they go on producing tokens after EOS',
        'keywords': [r'eos', r'finished', r'after (the )?(end|eos)', r'keeps? (receiving|getting|emitting)', r'done'],
        'kind': 'math',
        'single_edit': True}


@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id):
    B = src.size(0)
    tgt = torch.full((B, 1), bos_id, dtype=torch.long, device=src.device)
    done = torch.zeros(B, dtype=torch.bool, device=src.device)
    while tgt.size(1) < max_len:
        next_token = model(src, tgt)[:, -1].argmax(dim=-1)
        tgt = torch.cat([tgt, next_token[:, None]], dim=1)
        done |= next_token == eos_id
        if done.all():
            break
    return tgt
