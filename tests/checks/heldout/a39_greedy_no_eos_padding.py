META = {"exercise": "07.greedy_decode", "cause": "rows that already produced eos keep emitting the argmax instead of eos",
        "keywords": [r"eos", r"finished", r"ended", r"done", r"keeps? emitting"]}


@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id):
    tgt = torch.full((src.size(0), 1), bos_id, dtype=torch.long, device=src.device)
    for _ in range(max_len - 1):
        next_tok = model(src, tgt)[:, -1].argmax(-1, keepdim=True)
        tgt = torch.cat([tgt, next_tok], dim=1)
        if (tgt == eos_id).any(dim=1).all():
            break
    return tgt
