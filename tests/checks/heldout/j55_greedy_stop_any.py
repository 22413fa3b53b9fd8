META = {"exercise": "07.greedy_decode",
        "cause": "stops as soon as any row produces EOS instead of waiting for every row",
        "keywords": [r"\bany\b", r"\ball\b", r"every row", r"stop", r"early"]}


@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id):
    B = src.size(0)
    tgt = torch.full((B, 1), bos_id, dtype=torch.long, device=src.device)
    while tgt.size(1) < max_len:
        nxt = model(src, tgt)[:, -1].argmax(-1)
        tgt = torch.cat([tgt, nxt[:, None]], dim=1)
        if (nxt == eos_id).any():
            break
    return tgt
