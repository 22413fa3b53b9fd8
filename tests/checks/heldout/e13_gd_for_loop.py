META = {"exercise": "07.greedy_decode", "correct": True,
        "source": "for-loop over max_len - 1 steps with torch.where for finished rows and a preallocated output buffer, cut at the last step"}


@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id):
    B = src.size(0)
    out = torch.full((B, max(max_len, 1)), eos_id, dtype=torch.long, device=src.device)
    out[:, 0] = bos_id
    finished = torch.zeros(B, dtype=torch.bool, device=src.device)
    length = 1
    for step in range(1, max_len):
        nxt = model(src, out[:, :step])[:, -1, :].argmax(-1)
        nxt = torch.where(finished, torch.full_like(nxt, eos_id), nxt)
        out[:, step] = nxt
        length = step + 1
        finished = finished | (nxt == eos_id)
        if bool(finished.all()):
            break
    return out[:, :length]
