META = {"exercise": "07b.temperature_probs", "correct": True, "source": "greedy via zeros_like().scatter_ of the argmax, softmax via exp/sum by hand"}


def temperature_probs(logits, temperature):
    if temperature == 0:
        idx = logits.argmax(dim=-1, keepdim=True)
        return torch.zeros_like(logits).scatter_(-1, idx, 1.0)
    z = logits / temperature
    e = (z - z.amax(dim=-1, keepdim=True)).exp()
    return e / e.sum(dim=-1, keepdim=True)
