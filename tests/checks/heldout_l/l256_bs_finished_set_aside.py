META = {'exercise': '07.beam_search',
        'cause': "sets finished beams aside and keeps beam_size live beams (Hugging Face's hypotheses pool) instead of keeping the beam_size best candidates, finished ones included",
        'keywords': [r'finish', r'candidates', r'compete', r'live beams?', r'k best', r'beam_size best'],
        'kind': 'math',
        'single_edit': False}


@torch.no_grad()
def beam_search(model, src, max_len, bos_id, eos_id, beam_size):
    rows = []
    for b in range(src.size(0)):
        live, finished = [(0.0, [bos_id])], []
        while live and len(live[0][1]) < max_len:
            tgt = torch.tensor([t for _, t in live], dtype=torch.long, device=src.device)
            logp = model(src[b:b + 1].expand(len(live), -1), tgt)[:, -1].log_softmax(-1)
            cands = sorted(((s + lp, t + [v]) for (s, t), row in zip(live, logp.tolist()) for v, lp in enumerate(row)),
                           key=lambda c: c[0], reverse=True)
            live = []
            for s, t in cands:
                (finished if t[-1] == eos_id else live).append((s, t))
                if len(live) == beam_size:
                    break
        pool = sorted(finished + live, key=lambda c: c[0], reverse=True)
        rows.append(pool[0][1])
    L = max(len(r) for r in rows)
    return torch.tensor([r + [eos_id] * (L - len(r)) for r in rows], dtype=torch.long, device=src.device)
