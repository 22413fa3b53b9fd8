"""Notebook 07b's known mistakes, as data (helpers/checks/mistakes.py): per exercise, each
mistake's code, its message, and the wrong program, an edit of the check's float64 reference
(``"OLD -> NEW"``) or the wrong code itself."""

CATALOGUE = {
    "07b.temperature_probs": {  # edits of reference.temperature64
        "multiplied": {
            "message": "the logits are multiplied by the temperature: divide them, "
            "softmax(logits / temperature), so that a low temperature sharpens the distribution.",
            "wrong": "x / temperature -> x * temperature",
        },
        "ignored": {
            "message": "the temperature is ignored: softmax(logits / temperature).",
            "wrong": "x / temperature -> x",
        },
        "logits": {
            "message": "the output is logits / temperature, not probabilities: apply softmax over "
            "the last dim.",
            "wrong": "return scaled.softmax(-1) -> return scaled",
        },
        "log_softmax": {
            "message": "the output is log-probabilities (log_softmax): return the probabilities, "
            "softmax.",
            "wrong": "scaled.softmax -> scaled.log_softmax",
        },
        "wrong_dim": {
            "message": "the softmax runs over the wrong dim: each row of the vocabulary (the last "
            "dim, dim=-1) must sum to 1.",
            "wrong": "softmax(-1) -> softmax(0)",
        },
        # temperature 0: told apart from each other before the rest (greedy_mistake)
        "ties": {
            "message": "with temperature 0 a row whose largest logit ties gets a 1 at each tied "
            "logit (the row sums to more than 1), as logits == max gives: greedy is one-hot, a "
            "single 1 at the first of the largest logits, as argmax returns "
            "(F.one_hot(logits.argmax(-1), V)).",
            "wrong": "return torch.nn.functional.one_hot(first, x.size(-1)).double() -> "
            "return (x == x.amax(-1, keepdim=True)).double()",
        },
        "tie_last": {
            "message": "with temperature 0 and a tie for the largest logit, the 1 is at the last "
            "of the tied logits: greedy takes the first of them, as argmax returns.",
            "wrong": "first = x.argmax(-1) -> first = x.size(-1) - 1 - x.flip(-1).argmax(-1)",
        },
        "global_max": {
            "message": "with temperature 0 the 1 goes where a logit equals the largest of the "
            "whole tensor (logits.max()), not of each row: the other rows are all zeros and sum "
            "to 0. Take the argmax of each row, logits.argmax(dim=-1).",
            "wrong": "return torch.nn.functional.one_hot(first, x.size(-1)).double() -> "
            "return (x == x.max()).double()",
        },
        "split": {
            "message": "with temperature 0 row {row} is not one-hot: its mass is split ({values}) "
            "over logits that tie or nearly tie for the largest, as a tiny temperature (an "
            "epsilon such as 1e-6) does. Temperature 0 is greedy by definition: a single 1 at "
            "the argmax (the first of tied logits), F.one_hot(logits.argmax(-1), V).",
            "example": (
                "if temperature == 0: -> if False:",
                "x / temperature -> x / max(temperature, 1e-6)",
            ),
        },
        "overflow": {
            "message": "the probabilities contain {bad}: exp(logits / temperature) overflows to "
            "inf (logits / temperature reach {top:.0f} here, exp overflows above {limit:.0f} in "
            "{dtype}) and inf / inf is NaN. Subtract each row's max before exp (the softmax does "
            "not change), or use F.softmax / torch.softmax, which do it for you.",
            "example": (
                "x = logits.double() -> x = logits",
                "return scaled.softmax(-1) -> return scaled.exp() / scaled.exp().sum(-1, True)",
            ),
        },
        "index_not_one_hot": {
            "message": "with temperature 0 the output is the argmax's index: return a "
            "distribution, a one-hot row with 1 at the argmax (F.one_hot(logits.argmax(-1), "
            "V).to(dtype)).",
            "example": "return torch.nn.functional.one_hot(first, x.size(-1)).double() -> "
            "return first",
        },
        "zero_temperature_nan": {
            "message": "with temperature 0 the output is NaN (logits / 0): temperature 0 means "
            "greedy, a one-hot row with 1 at the argmax of each row.",
            "example": "if temperature == 0: -> if False:",
        },
    },
}
