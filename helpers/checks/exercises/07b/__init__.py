"""Notebook 07b's checks: one file per exercise, its checked questions (questions.py)."""

#: the notebook's exercises and questions in the order its check() cells call them: the order
#: of the grader's rows (tests/checks/test_lists_agree.py holds it to the solved notebook)
ORDER = (
    "encode",
    "decode",
    "q_uniform_perplexity",
    "lr_at",
    "clip_grad_norm",
    "save_checkpoint",
    "load_checkpoint",
    "q_resume_without_optimizer",
    "temperature_probs",
    "top_k_filter",
    "top_p_filter",
)
