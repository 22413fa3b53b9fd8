META = {'exercise': '07b.temperature_probs',
        'correct': True,
        'source': 'Hugging Face TemperatureLogitsWarper (scores / temperature) then softmax; greedy as scatter of 1 at the argmax'}


def temperature_probs(logits, temperature):
    if temperature == 0:
        probs = torch.zeros_like(logits)
        return probs.scatter_(-1, logits.argmax(dim=-1, keepdim=True), 1.0)
    scores_processed = logits / temperature
    return F.softmax(scores_processed, dim=-1)
