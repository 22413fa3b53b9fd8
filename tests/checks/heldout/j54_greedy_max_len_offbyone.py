META = {"exercise": "07.greedy_decode",
        "cause": "runs max_len decoding steps after BOS, so the output can reach max_len + 1 tokens",
        "keywords": [r"max_len", r"length", r"off.by.one", r"bos included", r"too long", r"\+ ?1"]}


@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id):
    B = src.size(0)
    tgt = torch.full((B, 1), bos_id, dtype=torch.long, device=src.device)
    done = torch.zeros(B, dtype=torch.bool, device=src.device)
    for _ in range(max_len):
        nxt = model(src, tgt)[:, -1].argmax(-1).masked_fill(done, eos_id)
        tgt = torch.cat([tgt, nxt[:, None]], dim=1)
        done |= nxt == eos_id
        if done.all():
            break
    return tgt
