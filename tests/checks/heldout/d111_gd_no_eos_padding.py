META = {"exercise": "07.greedy_decode",
        "cause": "does not force finished rows to keep emitting eos_id (no masked_fill with done), so rows continue with arbitrary tokens after their EOS",
        "keywords": [r"eos", r"finished|ended|done", r"pad"]}

@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id):
    B = src.size(0)
    tgt = torch.full((B, 1), bos_id, dtype=torch.long, device=src.device)
    done = torch.zeros(B, dtype=torch.bool, device=src.device)
    while tgt.size(1) < max_len:
        logits = model(src, tgt)
        next_token = logits[:, -1].argmax(dim=-1)
        tgt = torch.cat([tgt, next_token[:, None]], dim=1)
        done |= next_token == eos_id
        if done.all():
            break
    return tgt
