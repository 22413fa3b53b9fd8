"""Per-submission feedback: a Markdown file with each exercise's verdict and the check's message,
and where it goes (``--feedback DIR``)."""

from __future__ import annotations

import hashlib
import html
import re
from pathlib import Path

from .gradebook import plain

FEEDBACK_NAME_BYTES = 200  # a feedback file's name (a deep folder's path) is cut to this
MARKS = {"passed": "✅", "failed": "❌", "error": "⚠️", "timeout": "⏱", "missing": "➖"}


def feedback_markdown(sub, graded) -> str:
    from ..checks import EXERCISES

    rows = graded.rows
    points = sum(r.points for r in rows)
    max_points = sum(r.max_points for r in rows)
    notebook = rows[0].notebook if rows else (sub.notebook or "")
    lines = [f"# Feedback: {html.escape(sub.label, quote=False)}", ""]
    head = f"Notebook {notebook}" if notebook else "Notebook: unknown"
    lines += [f"{head} · **{points:g} / {max_points:g} points**", ""]
    from .lms import student_of

    if student_of(sub.label).late:
        lines += ["Handed in late (so marked by the LMS): the totals may take points off.", ""]
    if any(r.exercise for r in rows):
        lines += ["| exercise | status | points |", "| --- | --- | --- |"]
        for r in rows:
            if r.exercise:
                lines.append(
                    f"| {r.exercise} | {MARKS.get(r.status, '')} {r.status} | "
                    f"{r.points:g} / {r.max_points:g} |"
                )
        lines.append("")
    for r in rows:
        ex = EXERCISES.get(r.exercise)
        title = f" — {ex.title}" if ex is not None else ""
        mark = MARKS.get(r.status, "")
        lines.append(f"## {mark} {r.exercise or 'submission'}{title}: {r.status}")
        lines.append("")
        message = graded.messages.get(r.exercise, r.message) if r.exercise else r.message
        lines += ["```", message.strip() or "-", "```", ""]
    if graded.notes:
        lines += ["## Notes from running the notebook", ""]
        lines += [f"- {html.escape(note, quote=False)}" for note in graded.notes]
        lines.append("")
    lines.append(
        "Inputs for grading were made by the grader with a secret seed; your own check "
        "calls in the notebook do not count. Run your notebook top to bottom in a fresh "
        "kernel (Kernel → Restart & Run All) to reproduce errors."
    )
    return plain("\n".join(lines) + "\n")


def feedback_path(folder: Path, label: str) -> Path:
    """``DIR/alice__02.md`` for ``alice/02.ipynb``: the label's path, flattened."""
    name = (
        re.sub(r"[^\w.\-]+", "_", label.removesuffix(".ipynb").replace("/", "__")) or "submission"
    )
    if len(name.encode()) > FEEDBACK_NAME_BYTES:  # file systems refuse names past 255 bytes
        digest = hashlib.sha256(label.encode()).hexdigest()[:12]
        tail = name.encode()[-(FEEDBACK_NAME_BYTES - 16) :].decode(errors="ignore")
        name = f"{digest}--{tail}"
    return folder / f"{name}.md"
