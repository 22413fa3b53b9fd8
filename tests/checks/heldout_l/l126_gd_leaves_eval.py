META = {'exercise': '07.greedy_decode',
        'cause': "calls model.eval() and leaves the caller's model in eval mode",
        'keywords': [r'\.eval\(\)', r'\.train\(', r'(left|leaves?|stays?|remains?|comes back|back) in (eval|evaluation|train|training)', r'(puts?|switch\w*|sets?|turns?) (the |your )?(model|module) (in|to|into) eval', r'restor', r'\.training\b', r"(switch|chang|flip)\w* (the )?(caller'?s? )?(model|module)'?s? mode", r'mode (is |was )?(not )?(restored|changed|kept)', r'leaves?'],
        'kind': 'mode/state',
        'single_edit': True}


@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id):
    model.eval()
    B = src.size(0)
    tgt = torch.full((B, 1), bos_id, dtype=torch.long, device=src.device)
    done = torch.zeros(B, dtype=torch.bool, device=src.device)
    while tgt.size(1) < max_len:
        next_token = model(src, tgt)[:, -1].argmax(dim=-1)
        next_token = next_token.masked_fill(done, eos_id)
        tgt = torch.cat([tgt, next_token[:, None]], dim=1)
        done |= next_token == eos_id
        if done.all():
            break
    return tgt
