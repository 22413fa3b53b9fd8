META = {"exercise": "07.beam_search", "correct": True,
        "source": "textbook per-row beam search with Python lists of (score, tokens) and sorted(), then eos padding (d2l / classic NMT tutorial style)"}


@torch.no_grad()
def beam_search(model, src, max_len, bos_id, eos_id, beam_size):
    results = []
    for b in range(src.size(0)):
        beams = [(0.0, [bos_id])]
        while len(beams[0][1]) < max_len and not all(seq[-1] == eos_id for _, seq in beams):
            live = [(s, seq) for s, seq in beams if seq[-1] != eos_id]
            cands = [(s, seq + [eos_id]) for s, seq in beams if seq[-1] == eos_id]
            tgt = torch.tensor([seq for _, seq in live], dtype=torch.long, device=src.device)
            lp = model(src[b:b + 1].expand(len(live), -1), tgt)[:, -1].log_softmax(-1)
            for (s, seq), row in zip(live, lp.tolist()):
                cands.extend((s + l, seq + [v]) for v, l in enumerate(row))
            beams = sorted(cands, key=lambda c: c[0], reverse=True)[:beam_size]
        results.append(max(beams, key=lambda c: c[0])[1])
    L = max(len(r) for r in results)
    return torch.tensor([r + [eos_id] * (L - len(r)) for r in results], dtype=torch.long, device=src.device)
