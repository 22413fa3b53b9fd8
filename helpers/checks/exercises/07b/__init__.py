"""Notebook 07b's checks: one file per exercise, its checked questions (questions.py)."""
