META = {"exercise": "07b.top_p_filter",
        "cause": "returns the filtered logits in sorted order: never puts them back at their own token's position",
        "keywords": [r"unsort|scatter|put (every logit )?back|own (token'?s )?position|original (order|position)", r"sorted order|still sorted"]}


def top_p_filter(logits, p):
    sorted_logits, indices = logits.sort(dim=-1, descending=True)
    probs = sorted_logits.softmax(-1)
    before = probs.cumsum(-1) - probs
    return sorted_logits.masked_fill(before >= p, float("-inf"))
