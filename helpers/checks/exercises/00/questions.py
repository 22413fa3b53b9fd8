"""Notebook 00: its checked questions, as data (helpers/checks/questions.py: a choice
or a number; each wrong choice -> what is wrong with it, the explanation of the right one)."""

QUESTIONS = {
    "00.q_check_verdict": {
        "title": "what a check does with a wrong answer",
        "answer": "b",
        "choices": {
            "a": "a check compares the values with a reference's, on several inputs: the shape "
            "and the dtype are only its first steps, and |x| differs from ReLU wherever x < 0.",
            "b": "",
            "c": "a check never raises for a learner's mistake: it prints its verdict and returns "
            "a result (an error inside your code is reported with your line), and the notebook "
            "goes on.",
            "d": "a failed check says more than that: the case it failed on, and the mistake where "
            "it recognises it.",
        },
        "explanation": (
            "a check runs your code on its cases, compares each with a reference computed on the "
            "spot, and at the first case that differs stops and says which case it was and, where "
            "it knows the mistake (here |x|), what to change; it never raises, so the notebook "
            "goes "
            "on."
        ),
    },
}
