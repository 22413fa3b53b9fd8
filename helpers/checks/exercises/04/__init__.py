"""Notebook 04's checks: one file per exercise, its checked questions (questions.py)."""

#: the notebook's exercises and questions in the order its check() cells call them: the order
#: of the grader's rows (tests/checks/test_lists_agree.py holds it to the solved notebook)
ORDER = (
    "q_permutation",
    "sinusoidal_positional_encoding",
    "q_period",
    "PositionalEncoding",
    "apply_rope",
)
