META = {"exercise": "07b.top_p_filter", "correct": True, "source": "Hugging Face style: boolean remove mask scattered back, then masked_fill on the original logits"}


def top_p_filter(logits, p):
    sorted_logits, sorted_idx = torch.sort(logits, descending=True, dim=-1)
    probs = F.softmax(sorted_logits, dim=-1)
    remove_sorted = (torch.cumsum(probs, dim=-1) - probs) >= p
    remove = remove_sorted.scatter(-1, sorted_idx, remove_sorted)
    return logits.masked_fill(remove, float("-inf"))
