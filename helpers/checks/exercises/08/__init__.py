"""Notebook 08's checks: one file per exercise, its checked questions (questions.py)."""

#: the notebook's exercises and questions in the order its check() cells call them: the order
#: of the grader's rows (tests/checks/test_lists_agree.py holds it to the solved notebook)
ORDER = (
    "q_memory_growth",
    "blockwise_attention",
    "sliding_window_mask",
    "linear_attention",
    "q_kv_step",
    "kv_cache_step",
)
