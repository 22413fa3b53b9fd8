"""Notebook 01: its checked questions, as data (helpers/checks/questions.py: a choice
or a number; each wrong choice -> what is wrong with it, the explanation of the right one)."""

QUESTIONS = {
    "01.q_dog_row": {
        "title": "which key a token attends to most",
        "answer": "b",
        "choices": {
            "a": "a token's score with itself is its squared length, |dog|² = 1.5² + 0.2² + "
            "(-0.2)² = 2.33, but a dot product grows with the other vector's length too: work out "
            "dog · cat before deciding.",
            "b": "",
            "c": "'ran' is a verb: dog · ran = 1.5 · 0.2 + 0.2 · 1.4 + (-0.2)(-0.3) = 0.64, far "
            "below the animals' scores.",
            "d": "the scores differ (2.33 for itself, -0.04 for 'the', 0.64 for 'ran'...), and "
            "softmax turns different scores into different weights: the row is not uniform.",
        },
        "explanation": (
            "dog · cat = 1.5 · 1.6 + 0.2 · 0.1 + 0 + (-0.2)(0.3) = 2.36 beats dog · dog = 2.33: "
            "the longer vector 'cat' (|cat| = 1.63 against |dog| = 1.53) outscores the token "
            "itself."
        ),
    },
    "01.q_permutation": {
        "title": "what shuffling the tokens does to attention's outputs",
        "answer": "b",
        "choices": {
            "a": "each output row belongs to one token: move the tokens and their outputs move "
            "with them, so z's rows come out in the new order, not the old one.",
            "b": "",
            "c": "the weights are dot products between tokens, and the same pairs meet whatever "
            "the order: each token gets the same mix, only in a new row.",
            "d": "z has shape (T, d): its columns are the d features, which the shuffle of tokens "
            "leaves where they are (it is the weights, (T, T), that become P W Pᵀ).",
        },
        "explanation": (
            "attention(P x) = P attention(x): every token scores every token, the sum over keys "
            "does not care about their order, so each token gets the same output, moved to its new "
            "row. The order of the tokens is invisible to attention: notebook 04 adds it."
        ),
    },
}
