"""Notebook 00's known mistakes, as data (helpers/checks/mistakes.py): per exercise, each
mistake's code, its message, and the wrong program, an edit of the check's float64 reference
(``"OLD -> NEW"``) or the wrong code itself."""


def _expansions(nb: str = "[..., None, :]", cross: str = "- 2 *") -> list[str]:
    """||a_i||² + ||b_j||² - 2 a_i·b_j written out with a slip (||b||² indexed ``nb``, the cross
    term ``cross``), after moving a and b by each common centre a learner may take (none, b's
    mean, a's mean, the mean of all the points), clamped at 0 or not."""
    centres = ("0.0", "b.double().mean(-2, keepdim=True)", "a.double().mean(-2, keepdim=True)",
               "torch.cat([a, b], -2).double().mean(-2, keepdim=True)")  # fmt: skip
    return [
        f"def sq_dists64(a, b):\n    c = {centre}\n    a, b = a.double() - c, b.double() - c\n"
        f"    na, nb = (a * a).sum(-1)[..., :, None], (b * b).sum(-1){nb}\n"
        f"    return (na + nb {cross} (a @ b.transpose(-2, -1))){clamp}\n"
        for centre in centres
        for clamp in ("", ".clamp_min(0)")
    ]


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
    "00.pairwise_sq_dists": {  # edits of pairwise_sq_dists.sq_dists64, or the expansion
        "not_squared": {
            "message": "these are the distances themselves, ||a_i - b_j||: return their squares "
            "(leave out the square root).",
            "wrong": "return (diff**2).sum(-1) -> return (diff**2).sum(-1).sqrt()",
        },
        "missing_two": {
            "message": "the cross term is a_i·b_j once: ||a - b||² = ||a||² + ||b||² - 2 a·b, "
            "with the factor 2.",
            "wrong": _expansions(cross="-"),
        },
        "plus_cross_term": {
            "message": "the cross term is added: ||a - b||² = ||a||² + ||b||² - 2 a·b, minus.",
            "wrong": _expansions(cross="+ 2 *"),
        },
        "dot_product": {
            "message": "these are the dot products a_i·b_j (a @ bᵀ, attention's scores), not "
            "the squared distances ||a_i - b_j||².",
            "wrong": "return (diff**2).sum(-1) -> return a.double() @ b.double().transpose(-2, -1)",
        },
        "l1": {
            "message": "these are the sums of |a_i - b_j| over the features (the L1 distance): "
            "square the differences instead of taking their absolute value.",
            "wrong": "(diff**2) -> diff.abs()",
        },
        "sq_b_column": {
            "message": "||b_j||² is added as a column, indexed by a's point i: ||a_i||² + "
            "||b_i||² - 2 a_i·b_j. It belongs to b's point j, so it is a row, (..., 1, M): "
            "(b * b).sum(-1)[..., None, :], while ||a_i||² is the column, (..., N, 1).",
            "wrong": _expansions(nb="[..., :, None]"),
        },
        "transposed": {
            "message": "row i holds b's point i and column j a's point j (the output is "
            "transposed): row i is a's point i, column j b's point j.",
            "wrong": "return (diff**2).sum(-1) -> return (diff**2).sum(-1).transpose(-2, -1)",
        },
    },
}
