"""The course's documentation as the tests read it: README.md, CONTRIBUTING.md and the guides
in docs/ (the website's pages), so that a promise stays tested wherever it is written."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]


def docs_text() -> str:
    """Every documentation file, one after the other."""
    return "\n".join(path.read_text(encoding="utf-8") for path in DOCS)
