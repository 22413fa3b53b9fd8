"""Notebook 07's checks: one file per exercise, its checked questions (questions.py)."""

#: the notebook's exercises and questions in the order its check() cells call them: the order
#: of the grader's rows (tests/checks/test_lists_agree.py holds it to the solved notebook)
ORDER = (
    "TransformerDecoderBlock",
    "greedy_decode",
    "q_decoder_positions",
    "beam_search",
)
