META = {'exercise': '07.beam_search',
        'correct': True,
        'source': 'one row at a time with Python lists of (score, tokens), sorted by score (the textbook formulation)'}


@torch.no_grad()
def beam_search(model, src, max_len, bos_id, eos_id, beam_size):
    rows = []
    for b in range(src.size(0)):
        beams = [(0.0, [bos_id])]
        while len(beams[0][1]) < max_len and not all(t[-1] == eos_id for _, t in beams):
            live = [(s, t) for s, t in beams if t[-1] != eos_id]
            candidates = [(s, t + [eos_id]) for s, t in beams if t[-1] == eos_id]
            if live:
                tgt = torch.tensor([t for _, t in live], dtype=torch.long, device=src.device)
                logp = model(src[b:b + 1].expand(len(live), -1), tgt)[:, -1].log_softmax(-1)
                for (s, t), row in zip(live, logp.tolist()):
                    candidates.extend((s + lp, t + [v]) for v, lp in enumerate(row))
            candidates.sort(key=lambda c: c[0], reverse=True)
            beams = candidates[:beam_size]
        rows.append(beams[0][1])
    L = max(len(r) for r in rows)
    return torch.tensor([r + [eos_id] * (L - len(r)) for r in rows], dtype=torch.long, device=src.device)
