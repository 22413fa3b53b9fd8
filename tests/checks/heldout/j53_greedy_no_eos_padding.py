META = {"exercise": "07.greedy_decode",
        "cause": "does not force finished rows to keep emitting eos_id, so rows continue with arbitrary tokens after their EOS",
        "keywords": [r"finish", r"eos", r"pad", r"done"]}


@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id):
    B = src.size(0)
    tgt = torch.full((B, 1), bos_id, dtype=torch.long, device=src.device)
    done = torch.zeros(B, dtype=torch.bool, device=src.device)
    while tgt.size(1) < max_len:
        nxt = model(src, tgt)[:, -1].argmax(-1)
        tgt = torch.cat([tgt, nxt[:, None]], dim=1)
        done |= nxt == eos_id
        if done.all():
            break
    return tgt
