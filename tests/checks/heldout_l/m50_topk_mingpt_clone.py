META = {'exercise': '07b.top_k_filter',
        'correct': True,
        'source': 'minGPT / nanoGPT generate: v, _ = topk; out = logits.clone(); out[out < v[..., [-1]]] = -inf'}


def top_k_filter(logits, k):
    v, _ = torch.topk(logits, min(k, logits.size(-1)))
    out = logits.clone()
    out[out < v[..., [-1]]] = -float("Inf")
    return out
