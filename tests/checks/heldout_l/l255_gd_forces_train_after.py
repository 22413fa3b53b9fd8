META = {'exercise': '07.greedy_decode',
        'cause': 'calls model.eval() and ends with model.train(): a model that was in eval mode comes back in training mode',
        'keywords': [r'\.eval\(\)', r'\.train\(', r'(left|leaves?|stays?|remains?|comes back|back) in (eval|evaluation|train|training)', r'(puts?|switch\w*|sets?|turns?) (the |your )?(model|module) (in|to|into) eval', r'restor', r'\.training\b', r"(switch|chang|flip)\w* (the )?(caller'?s? )?(model|module)'?s? mode", r'mode (is |was )?(not )?(restored|changed|kept)', r'leaves?', r'was in'],
        'kind': 'mode/state',
        'single_edit': False}


@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id):
    model.eval()
    B = src.size(0)
    tgt = torch.full((B, 1), bos_id, dtype=torch.long, device=src.device)
    done = torch.zeros(B, dtype=torch.bool, device=src.device)
    while tgt.size(1) < max_len and not done.all():
        nxt = model(src, tgt)[:, -1].argmax(-1).masked_fill(done, eos_id)
        tgt = torch.cat([tgt, nxt[:, None]], dim=1)
        done = done | (nxt == eos_id)
    model.train()
    return tgt
