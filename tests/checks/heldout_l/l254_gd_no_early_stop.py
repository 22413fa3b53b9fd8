META = {'exercise': '07.greedy_decode',
        'cause': 'always runs max_len - 1 steps: never stops once every row has produced EOS',
        'keywords': [r'stop', r'every row', r'all rows', r'early', r'(wrong|too long|too short|longer|shorter) (length|output)', r'length (is |was )?(wrong|differ)', r'too (long|short)', r'break'],
        'kind': 'math',
        'single_edit': False}


@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id):
    tgt = torch.full((src.size(0), 1), bos_id, dtype=torch.long, device=src.device)
    finished = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
    for _ in range(max_len - 1):
        logits = model(src, tgt)
        nxt = torch.where(finished, torch.full_like(logits[:, -1, 0], eos_id, dtype=torch.long), logits[:, -1].argmax(-1))
        finished = finished | (nxt == eos_id)
        tgt = torch.cat([tgt, nxt.unsqueeze(1)], dim=1)
    return tgt
