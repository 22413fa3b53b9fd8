META = {'exercise': '07b.top_p_filter',
        'cause': 'loops over each row and stops once the running total exceeds p (>): at a total exactly equal to p one token too many is kept',
        'keywords': [r'>=', r'reach', r'exactly p', r'strict', r'equal', r'one token too many'],
        'kind': 'math',
        'single_edit': False}


def top_p_filter(logits, p):
    out = torch.full_like(logits, float("-inf"))
    flat_in, flat_out = logits.reshape(-1, logits.size(-1)), out.view(-1, logits.size(-1))
    for row_in, row_out in zip(flat_in, flat_out):
        probs = row_in.softmax(-1)
        total = 0.0
        for idx in probs.argsort(descending=True).tolist():
            row_out[idx] = row_in[idx]
            total += probs[idx].item()
            if total > p:
                break
    return out
