META = {"exercise": "07b.top_p_filter", "correct": True,
        "source": "the removal mask (not the values) scattered back to token order, then masked_fill on the original logits"}


def top_p_filter(logits, p):
    sorted_logits, indices = torch.sort(logits, dim=-1, descending=True)
    probs = F.softmax(sorted_logits, dim=-1)
    remove_sorted = probs.cumsum(dim=-1) - probs >= p
    remove = remove_sorted.scatter(-1, indices, remove_sorted)
    return logits.masked_fill(remove, float("-inf"))
