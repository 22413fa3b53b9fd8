META = {'exercise': '07.greedy_decode',
        'correct': True,
        'source': 'a preallocated (B, max_len) buffer filled step by step; stop when every row has an eos'}


@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id):
    B = src.size(0)
    out = torch.full((B, max_len), eos_id, dtype=torch.long, device=src.device)
    out[:, 0] = bos_id
    length = 1
    for t in range(1, max_len):
        if (out[:, 1:t] == eos_id).any(dim=1).all():
            break
        finished = (out[:, 1:t] == eos_id).any(dim=1)
        nxt = model(src, out[:, :t]).argmax(dim=-1)[:, -1]
        out[:, t] = torch.where(finished, torch.full_like(nxt, eos_id), nxt)
        length = t + 1
    return out[:, :length]
