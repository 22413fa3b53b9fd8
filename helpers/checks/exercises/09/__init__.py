"""Notebook 09's checks: one file per exercise, its checked questions (questions.py)."""
