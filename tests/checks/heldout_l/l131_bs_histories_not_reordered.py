META = {'exercise': '07.beam_search',
        'cause': 'the histories are not gathered by parent beam before the new tokens are appended',
        'keywords': [r'parent', r'gather', r'histor', r'reorder'],
        'kind': 'math',
        'single_edit': True}


@torch.no_grad()
def beam_search(model, src, max_len, bos_id, eos_id, beam_size):
    B, k, dev = src.size(0), beam_size, src.device
    src_k = src.repeat_interleave(k, dim=0)
    tgt = torch.full((B * k, 1), bos_id, dtype=torch.long, device=dev)
    scores = torch.full((B, k), float("-inf"), device=dev)
    scores[:, 0] = 0.0
    done = torch.zeros(B, k, dtype=torch.bool, device=dev)
    while tgt.size(1) < max_len and not done.all():
        log_probs = model(src_k, tgt)[:, -1].log_softmax(dim=-1)
        V = log_probs.size(-1)
        log_probs = log_probs.view(B, k, V)
        eos_row = torch.full((V,), float("-inf"), dtype=log_probs.dtype, device=dev)
        eos_row[eos_id] = 0.0
        log_probs = torch.where(done[..., None], eos_row, log_probs)
        candidates = (scores[..., None] + log_probs).view(B, k * V)
        scores, index = candidates.topk(k, dim=-1)
        parent, token = index // V, index % V
        rows = (torch.arange(B, device=dev)[:, None] * k + parent).view(-1)
        tgt = torch.cat([tgt, token.view(-1, 1)], dim=1)
        done = token == eos_id
    best = scores.argmax(dim=-1)
    return tgt.view(B, k, -1)[torch.arange(B, device=dev), best]
