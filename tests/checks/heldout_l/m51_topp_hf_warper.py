META = {'exercise': '07b.top_p_filter',
        'correct': True,
        'source': 'Hugging Face TopPLogitsWarper (ascending sort, cumulative_probs <= 1 - top_p removed, last min_tokens_to_keep kept, scatter back)'}


def top_p_filter(logits, p):
    top_p, min_tokens_to_keep = p, 1
    sorted_logits, sorted_indices = torch.sort(logits, descending=False)
    cumulative_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
    sorted_indices_to_remove = cumulative_probs <= (1 - top_p)
    sorted_indices_to_remove[..., -min_tokens_to_keep:] = 0
    indices_to_remove = sorted_indices_to_remove.scatter(-1, sorted_indices, sorted_indices_to_remove)
    return logits.masked_fill(indices_to_remove, -float("Inf"))
