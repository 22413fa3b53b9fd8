"""Notebook 05's checks: one file per exercise, its checked questions (questions.py)."""
