META = {"exercise": "07.greedy_decode", "cause": "the loop makes max_len new tokens after BOS, so the output can have max_len + 1 tokens; max_len counts BOS", "keywords": [r"max_len", r"off[- ]by[- ]one", r"BOS included|including BOS|counts? BOS", r"too (long|many)", r"length"]}


@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id):
    B = src.size(0)
    out = torch.full((B, 1), bos_id, dtype=torch.long, device=src.device)
    finished = torch.zeros(B, dtype=torch.bool, device=src.device)
    for _ in range(max_len):
        nxt = model(src, out)[:, -1, :].argmax(-1)
        nxt = nxt.masked_fill(finished, eos_id)
        out = torch.cat([out, nxt.unsqueeze(1)], dim=1)
        finished = finished | (nxt == eos_id)
        if finished.all():
            break
    return out
