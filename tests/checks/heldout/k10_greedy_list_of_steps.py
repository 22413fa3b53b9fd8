META = {"exercise": "07.greedy_decode", "correct": True, "source": "list of step columns, torch.where for finished rows, stacked at the end"}


@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id):
    B = src.size(0)
    steps = [torch.full((B,), bos_id, dtype=torch.long, device=src.device)]
    finished = torch.zeros(B, dtype=torch.bool, device=src.device)
    while len(steps) < max_len and not bool(finished.all()):
        logits = model(src, torch.stack(steps, dim=1))
        tok = logits[:, -1, :].argmax(dim=-1)
        tok = torch.where(finished, torch.full_like(tok, eos_id), tok)
        finished = finished | (tok == eos_id)
        steps.append(tok)
    return torch.stack(steps, dim=1)
