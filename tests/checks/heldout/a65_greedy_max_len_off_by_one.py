META = {"exercise": "07.greedy_decode", "cause": "generates max_len tokens after BOS, so the output can be max_len + 1 long",
        "keywords": [r"max_len", r"length", r"L <= max_len", r"off.by.one", r"too long"]}


@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id):
    B = src.size(0)
    tgt = torch.full((B, 1), bos_id, dtype=torch.long, device=src.device)
    finished = torch.zeros(B, dtype=torch.bool, device=src.device)
    for _ in range(max_len):
        nxt = model(src, tgt)[:, -1, :].argmax(-1)
        nxt[finished] = eos_id
        tgt = torch.cat([tgt, nxt.unsqueeze(1)], dim=1)
        finished |= nxt == eos_id
        if finished.all():
            break
    return tgt
