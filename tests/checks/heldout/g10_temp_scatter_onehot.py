META = {"exercise": "07b.temperature_probs", "correct": True,
        "source": "greedy one-hot by scatter into zeros_like; log_softmax then exp"}


def temperature_probs(logits, temperature):
    if temperature == 0:
        idx = logits.argmax(dim=-1, keepdim=True)
        return torch.zeros_like(logits).scatter(-1, idx, 1.0)
    return torch.log_softmax(logits / temperature, dim=-1).exp()
