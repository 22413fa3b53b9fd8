META = {"exercise": "07.beam_search", "correct": True,
        "source": "flat (B*k) score vector with masked_fill for finished beams and torch.gather of histories (fairseq / HF BeamSearchScorer-like vectorisation, no length penalty)"}


@torch.no_grad()
def beam_search(model, src, max_len, bos_id, eos_id, beam_size):
    B, k, dev = src.size(0), beam_size, src.device
    src_k = src.unsqueeze(1).expand(B, k, src.size(1)).reshape(B * k, -1)
    seqs = torch.full((B, k, 1), bos_id, dtype=torch.long, device=dev)
    score = torch.zeros(B, k, dtype=torch.float64, device=dev)
    score[:, 1:] = float("-inf")
    for _ in range(max_len - 1):
        finished = seqs[:, :, -1] == eos_id  # (B, k)
        if bool(finished.all()):
            break
        lp = model(src_k, seqs.reshape(B * k, -1))[:, -1].log_softmax(-1).to(score.dtype)
        V = lp.size(-1)
        lp = lp.view(B, k, V)
        eos_only = torch.full((V,), float("-inf"), dtype=lp.dtype, device=dev)
        eos_only[eos_id] = 0
        lp = torch.where(finished.unsqueeze(-1), eos_only, lp)
        total = (score.unsqueeze(-1) + lp).flatten(1)
        score, flat = total.sort(dim=-1, descending=True)
        score, flat = score[:, :k], flat[:, :k]
        parent, token = flat.div(V, rounding_mode="floor"), flat.remainder(V)
        seqs = torch.gather(seqs, 1, parent.unsqueeze(-1).expand(-1, -1, seqs.size(-1)))
        seqs = torch.cat([seqs, token.unsqueeze(-1)], dim=-1)
    best = score.argmax(-1)
    return seqs[torch.arange(B, device=dev), best]
