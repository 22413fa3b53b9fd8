"""Notebook 00's known mistakes, as data (helpers/checks/mistakes.py): per exercise, each
mistake's code, its message, and the wrong program, an edit of the check's float64 reference
(``"OLD -> NEW"``) or the wrong code itself."""

CATALOGUE = {
    "00.relu": {  # edits of relu.relu64
        "abs": {
            "message": "you returned |x|: negative inputs must become 0, not positive.",
            "wrong": "return torch.where(x > 0, x, torch.zeros_like(x)) -> return x.abs()",
        },
        "negative_part": {
            "message": "you kept the negative part: keep x where x > 0 and put 0 elsewhere.",
            "wrong": "x > 0 -> x < 0",
        },
        "identity": {
            "message": "the output equals the input: negative values must become 0.",
            "wrong": "return torch.where(x > 0, x, torch.zeros_like(x)) -> return x",
        },
        "step": {
            "message": "the output is 1 where x is positive (the step function, x > 0): keep the "
            "positive values themselves, x where x > 0 and 0 elsewhere.",
            "wrong": "torch.where(x > 0, x, -> torch.where(x > 0, torch.ones_like(x),",
        },
        "leaky": {
            "message": "negative inputs are multiplied by {factor:.3g} (a leaky ReLU): ReLU puts "
            "0 there, max(x, 0).",
            "example": "torch.zeros_like(x) -> 0.01 * x",
        },
    },
}
