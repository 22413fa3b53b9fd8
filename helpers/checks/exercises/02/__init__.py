"""Notebook 02's checks: one file per exercise, its checked questions (questions.py)."""

#: the notebook's exercises and questions in the order its check() cells call them: the order
#: of the grader's rows (tests/checks/test_lists_agree.py holds it to the solved notebook)
ORDER = (
    "q_saturation",
    "scaled_dot_product_attention",
    "causal_mask",
    "padding_mask",
    "q_empty_row",
    "attention_backward",
)
