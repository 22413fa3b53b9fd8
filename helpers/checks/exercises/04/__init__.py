"""Notebook 04's checks: one file per exercise, its checked questions (questions.py)."""
