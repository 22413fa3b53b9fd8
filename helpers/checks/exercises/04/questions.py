"""Notebook 04: its checked questions, as data (helpers/checks/questions.py: a choice
or a number; each wrong choice -> what is wrong with it, the explanation of the right one)."""

import math

QUESTIONS = {
    "04.q_permutation": {
        "title": "attention without positions, on shuffled tokens",
        "answer": "b",
        "choices": {
            "a": "nothing in attention looks at where a token sits: each output is a weighted "
            "average whose weights come from dot products of the token vectors alone, so "
            "shuffling cannot make new values appear.",
            "b": "",
            "c": "the outputs do not stay in the old order: output t belongs to the token now at "
            "position t, so they move with their tokens.",
            "d": "the outputs are not all equal: each query still has its own dot products with "
            "the keys, so different tokens get different weights and outputs.",
        },
        "explanation": (
            "Attn(P x) = P Attn(x): each token's output depends on its own vector and the set of "
            "all tokens, not on their order, so shuffling the inputs shuffles the outputs the "
            "same way (permutation equivariance). Attention alone cannot tell 'dog bites man' "
            "from 'man bites dog'."
        ),
    },
    "04.q_period": {
        "title": "the period of columns 4 and 5 of the table (d_model = 64)",
        "answer": 2 * math.pi * 10000 ** (4 / 64),
        "rel_tol": 0.03,
        "wrong_numbers": {
            10000 ** (4 / 64): "that is 1/w_2, the positions per radian: a full turn is 2π "
            "radians, so the period is 2π / w_i.",
            2 * math.pi * 10000 ** (5 / 64): "that uses the column index 5 in the exponent: "
            "columns 4 and 5 form pair i = 2 and share one frequency, w_2 = 10000^(-4/64).",
            2 * math.pi * 10000 ** (2 / 64): "that uses i = 2 instead of 2i = 4 in the exponent: "
            "w_i = 10000^(-2i/d_model).",
            2 * math.pi * 10000 ** (8 / 64): "that uses 2j = 8 for column j = 4: columns 2i and "
            "2i+1 share the frequency 10000^(-2i/d_model), and column 4 is 2i = 4.",
            2 * math.pi: "that is the period of columns 0 and 1 (w_0 = 1): columns 4 and 5 turn "
            "more slowly.",
        },
        "explanation": (
            "2π · 10000^(4/64) ≈ 11.2 positions: columns 4 and 5 are pair i = 2, whose angle "
            "turns by w_2 = 10000^(-4/64) ≈ 0.56 radians per position, a full turn every "
            "2π / w_2 positions."
        ),
    },
}
