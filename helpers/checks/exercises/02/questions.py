"""Notebook 02: its checked questions, as data (helpers/checks/questions.py: a choice
or a number; each wrong choice -> what is wrong with it, the explanation of the right one)."""

QUESTIONS = {
    "02.q_saturation": {
        "title": "what unscaled scores do to the softmax as d_k grows",
        "answer": "c",
        "choices": {
            "a": "larger scores do the opposite: softmax turns a difference of scores into a ratio "
            "of weights, e^(s_i - s_j), and the differences grow like sqrt(d_k), so the ratios "
            "grow and the weights spread less, not more.",
            "b": "softmax does not change when the same number is *added* to every score, but "
            "these scores are *multiplied* (their spread grows like sqrt(d_k)): that is a lower "
            "temperature, and it changes the weights.",
            "c": "",
            "d": "at d_k = 1024 the scores are about 32 in size; exp overflows in float32 only "
            "above 88, and a softmax that subtracts the max never overflows: no NaN.",
        },
        "explanation": (
            "the scores' spread grows like sqrt(d_k) (32 at d_k = 1024), and softmax exaggerates "
            "differences: the largest score takes nearly all the weight, the entropy falls toward "
            "0 and the Jacobian diag(p) - p pᵀ toward all zeros, so little gradient flows back."
        ),
    },
    "02.q_empty_row": {
        "title": "the weights of a query that may attend to no key",
        "answer": "c",
        "choices": {
            "a": "zeros need someone to put them there: softmax divides by the sum of the "
            "exponentials, and with every score at -inf that sum is 0 too.",
            "b": "uniform weights are what a large *finite* fill (-1e9) gives, since the scores "
            "are then all equal; with -inf every exponential is exactly 0.",
            "c": "",
            "d": "nothing raises: -inf is a float like any other, and exp, sum and division are "
            "defined for it (masked_fill does not check what is left).",
        },
        "explanation": (
            "every score is -inf, every exponential e^-inf is 0, and softmax computes 0 / 0 = NaN "
            "for each weight (a max-subtracting softmax even computes -inf - (-inf) = NaN first)."
        ),
    },
}
