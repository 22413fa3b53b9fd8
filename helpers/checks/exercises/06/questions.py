"""Notebook 06: its checked questions, as data (helpers/checks/questions.py: a choice
or a number; each wrong choice -> what is wrong with it, the explanation of the right one)."""

import math

QUESTIONS = {
    "06.q_initial_loss": {
        "title": "the loss of an untrained model on 10 classes",
        "answer": math.log(10),
        "rel_tol": 0.02,
        "wrong_numbers": {
            math.log2(10): "that is log base 2, the loss in bits: PyTorch's cross-entropy uses the "
            "natural log (nats).",
            1.0: "that is log base 10 of 10: PyTorch's cross-entropy uses the natural log.",
            0.1: "that is the probability of the right digit, not the loss: the loss is -log of "
            "it.",
            0.9: "that is the error rate of a guess, not the cross-entropy: the loss is -log of "
            "the probability given to the right digit.",
            10.0: "the loss is -log p of the right class, and p = 1/10 for every class.",
            -math.log(10): "a loss is -log p, which is positive for p < 1.",
        },
        "explanation": (
            "-ln(1/10) = ln 10 = 2.303: a model whose logits are all about equal gives every "
            "digit probability 1/10, and the cross-entropy is -ln of the probability of the "
            "right one. A loss far above it at step 0 means the initial logits are large and "
            "confidently wrong, an initialization to fix."
        ),
    },
    "06.q_induction_layer": {
        "title": "where the induction head forms",
        "answer": "b",
        "choices": {
            "a": "a layer-0 key is computed from one position's own token and position: it cannot "
            "hold which token came before it, and that is what the induction head must match.",
            "b": "",
            "c": "the two layers are not interchangeable: what a head's keys can hold depends on "
            "what the layers below it wrote into the residual stream.",
            "d": "the test loss on the repeated half drops close to 0 (the plot above): some head "
            "finds the earlier copy and copies the token after it.",
        },
        "explanation": (
            "the induction head must match 'the token before you is mine', so its keys need the "
            "previous token, which a layer-0 head (a previous-token head) has to write into each "
            "position first: K-composition, possible only in layer 1 (see 'Why it takes two "
            "layers' below)."
        ),
    },
}
