META = {"exercise": "07b.temperature_probs", "correct": True,
        "source": "softmax by hand with the row max subtracted; greedy by comparing arange with the argmax"}


def temperature_probs(logits, temperature):
    if not temperature:
        ar = torch.arange(logits.size(-1), device=logits.device)
        return (ar == logits.argmax(dim=-1, keepdim=True)).to(logits.dtype)
    z = logits / temperature
    e = (z - z.amax(dim=-1, keepdim=True)).exp()
    return e / e.sum(dim=-1, keepdim=True)
