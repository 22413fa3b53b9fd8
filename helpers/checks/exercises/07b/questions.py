"""Notebook 07b: its checked questions, as data (helpers/checks/questions.py: a choice
or a number; each wrong choice -> what is wrong with it, the explanation of the right one)."""

import math

VOCAB_SIZE = 108  # len(set(course_text())): tests/checks/test_nb07b_craft.py holds it

QUESTIONS = {
    "07b.q_uniform_perplexity": {
        "title": "the perplexity of a uniform guess",
        "answer": VOCAB_SIZE,
        "wrong_numbers": {
            math.log(
                VOCAB_SIZE
            ): "that is its loss, -ln(1 / vocab_size) = ln(vocab_size) nats; the "
            "perplexity is e to the loss.",
            1
            / VOCAB_SIZE: "that is the probability it gives each character; the perplexity is e to "
            "the loss, the loss -ln of that probability.",
            math.log2(VOCAB_SIZE): "that is the loss in bits; the perplexity is e to the loss in "
            "nats (or 2 to the loss in bits).",
        },
        "explanation": (
            f"every character gets probability 1/{VOCAB_SIZE}, so the loss is ln({VOCAB_SIZE}) = "
            f"{math.log(VOCAB_SIZE):.2f} nats at every position and the perplexity "
            f"e^ln({VOCAB_SIZE}) "
            f"= {VOCAB_SIZE}: as unsure as a uniform choice among all {VOCAB_SIZE} characters, "
            f"which "
            f"is what it makes. The untrained model, below, starts near that loss."
        ),
    },
    "07b.q_resume_without_optimizer": {
        "title": "resuming without the optimizer's state",
        "answer": "b",
        "choices": {
            "a": "AdamW does not rebuild its running averages from one gradient: a fresh AdamW "
            "starts them at 0 and its step count at 1, so its first update is not the one the "
            "saved optimizer would make.",
            "b": "",
            "c": "the loss of the first resumed step is computed before any update, by the model "
            "alone, which was loaded.",
            "d": "once one update differs, the weights differ, and every later loss with them.",
        },
        "explanation": (
            "the first loss is computed by the loaded model before the optimizer does anything, so "
            "it "
            "is the first run's; the update after it comes from a fresh AdamW (running averages 0, "
            "step count 1), which moves the weights otherwise, and every loss from the second on "
            "differs."
        ),
    },
}
