META = {"exercise": "07b.top_p_filter",
        "cause": "builds the removal mask in sorted order and applies it to the unsorted logits: the mask's positions are ranks, not tokens",
        "keywords": [r"sorted order|rank", r"unsort|scatter|put (every logit )?back|own (token'?s )?position|original (order|position)"]}


def top_p_filter(logits, p):
    sorted_logits, indices = logits.sort(dim=-1, descending=True)
    probs = sorted_logits.softmax(-1)
    remove = (probs.cumsum(-1) - probs) >= p
    return logits.masked_fill(remove, float("-inf"))
