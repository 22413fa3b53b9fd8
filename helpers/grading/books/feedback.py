"""Per-submission feedback: a Markdown file with each exercise's verdict and the check's message,
and where it goes (``--feedback DIR``)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from ..limits import FEEDBACK_MESSAGE_CHARS
from .gradebook import cut, plain

FEEDBACK_NAME_BYTES = 200  # a feedback file's name (a deep folder's path) is cut to this
MARKS = {"passed": "✅", "failed": "❌", "error": "⚠️", "timeout": "⏱", "missing": "➖"}


def feedback_markdown(sub, graded) -> str:
    from ...checks import EXERCISES

    rows = graded.rows
    points = sum(r.points for r in rows)
    max_points = sum(r.max_points for r in rows)
    notebook = rows[0].notebook if rows else (sub.notebook or "")
    lines = [f"# Feedback: {code_span(sub.label)}", ""]
    head = f"Notebook {notebook}" if notebook else "Notebook: unknown"
    lines += [f"{head} · **{points:g} / {max_points:g} points**", ""]
    from ..reading.students import student_of

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
        lines += [*code_block(cut(message.strip(), FEEDBACK_MESSAGE_CHARS) or "-"), ""]
    if graded.notes:
        lines += ["## Notes from running the notebook", ""]
        lines += [f"- {code_span(note)}" for note in graded.notes]
        lines.append("")
    lines.append(
        "Inputs for grading were made by the grader with a secret seed; your own check "
        "calls in the notebook do not count. Run your notebook top to bottom in a fresh "
        "kernel (Kernel → Restart & Run All) to reproduce errors."
    )
    return plain("\n".join(lines) + "\n")


# Text from a submission (its name, its messages, the notes on its cells) is put only where
# Markdown shows it as it is, in code: no link, image or HTML of a learner's reaches a reader.


def _fence(text: str) -> str:
    """Backticks one longer than the longest run in ``text``: nothing in it closes them."""
    runs = [len(r) for r in re.findall(r"`+", text)]
    return "`" * (max(runs, default=0) + 1)


def code_span(text: str) -> str:
    """``text`` as inline code, whatever backticks it holds (CommonMark's code spans)."""
    text = " ".join(text.split("\n"))
    fence = _fence(text)
    return f"{fence} {text} {fence}" if text else "` `"


def code_block(text: str) -> list[str]:
    """``text`` as a fenced code block that no line of it can close."""
    fence = _fence(text)
    fence = fence if len(fence) >= 3 else "```"
    return [fence, text, fence]


def feedback_path(folder: Path, label: str) -> Path:
    """``DIR/alice__02.md`` for ``alice/02.ipynb``: the label's path, flattened, one file per
    label. A label the flattening could confuse with another (``alice__02.ipynb`` beside
    ``alice/02.ipynb``, characters replaced, a name too long) gets a digest of itself."""
    stem = label.removesuffix(".ipynb")
    parts = stem.split("/")
    name = re.sub(r"[^\w.\-]+", "_", "__".join(parts)) or "submission"
    clean = (
        name == "__".join(parts)
        and all(p and "__" not in p and p.strip("_") == p for p in parts)
        and "--" not in name
        and len(name.encode()) <= FEEDBACK_NAME_BYTES
    )
    if not clean:  # "__" then says "/" only in a clean name: no two labels share a file
        digest = hashlib.sha256(label.encode()).hexdigest()[:12]
        tail = name.encode()[-(FEEDBACK_NAME_BYTES - 16) :].decode(errors="ignore")
        name = f"{tail}--{digest}"
    return folder / f"{name}.md"
