META = {'exercise': '07b.top_k_filter',
        'correct': True,
        'source': 'Hugging Face TopKLogitsWarper (top_k = min(max(top_k, min_tokens_to_keep), size); scores < topk(...)[0][..., -1, None])'}


def top_k_filter(logits, k):
    top_k = min(max(k, 1), logits.size(-1))
    indices_to_remove = logits < torch.topk(logits, top_k)[0][..., -1, None]
    scores_processed = logits.masked_fill(indices_to_remove, -float("Inf"))
    return scores_processed
