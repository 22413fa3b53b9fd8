META = {"exercise": "07.beam_search",
        "cause": 'finished beams are extended like live ones (any token, with its log-probability) instead of staying as they are with eos_id at no cost',
        "keywords": [r"finish|frozen|eos|done|stays?|ended"]}


@torch.no_grad()
def beam_search(model, src, max_len, bos_id, eos_id, beam_size):
    B, k = src.size(0), beam_size
    src_k = src.repeat_interleave(k, dim=0)
    tgt = torch.full((B * k, 1), bos_id, dtype=torch.long, device=src.device)
    scores = torch.full((B, k), float("-inf"), device=src.device)
    scores[:, 0] = 0.0
    rows = torch.arange(B, device=src.device)[:, None] * k
    while tgt.size(1) < max_len:
        done = (tgt[:, -1] == eos_id).view(B, k)
        if done.all():
            break
        log_probs = model(src_k, tgt)[:, -1].log_softmax(dim=-1)
        V = log_probs.size(-1)
        log_probs = log_probs.view(B, k, V)
        candidates = (scores[..., None] + log_probs).view(B, k * V)
        scores, index = candidates.topk(k, dim=-1)
        parent = (rows + index // V).view(-1)
        tgt = torch.cat([tgt[parent], (index % V).view(-1, 1)], dim=1)
    best = rows[:, 0] + scores.argmax(dim=-1)
    return tgt[best]
