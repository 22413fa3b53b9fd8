"""The site's lesson pages (a Sphinx extension): one per solved notebook, in order, written to
``docs/lessons/`` before Sphinx reads its sources.

A page is the solved notebook's text and stored outputs with the student notebook's code cells:
the generator's TODO stubs (``helpers/notebooks/student.py``), never the solution. Under its
title come the links (Open in Colab, with ``-D course_repo=URL``; the student notebook to
download) and its checks with their stars and minutes, read from the exercise headings
(``### Exercise 02.causal_mask — a causal mask (⏱ 5 min · ★☆☆)``). Nothing is executed.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from helpers.checks import EXERCISES
from helpers.notebook_files import ROOT, load_notebook, solution_paths
from helpers.notebooks.common import sync
from helpers.notebooks.student import colab_url, student_notebook

OUT = Path(__file__).parent / "lessons"
# "### Exercise 02.causal_mask — a causal mask (⏱ 5 min · ★☆☆)": the id, minutes and stars
HEADING = re.compile(r"^#+ Exercise (\S+) — .*\(⏱ ([^·)]+?) · ([★☆]+)\)\s*$", re.M)


def checks_table(solved: nbformat.NotebookNode) -> str:
    """The notebook's checks, in order: id, what it checks, stars, minutes and points."""
    headings = {
        m[1]: (m[2], m[3])
        for cell in solved.cells
        if cell.cell_type == "markdown"
        for m in HEADING.finditer(cell.source)
    }
    rows = ["| check | what | level | time | points |", "| --- | --- | --- | --- | ---: |"]
    for cell in solved.cells:
        exercise = cell.metadata.get("course", {}).get("exercise")
        if exercise:
            ex = EXERCISES[exercise]
            minutes, stars = headings.get(exercise, ("", "question"))
            minutes = minutes.replace(" ", "\N{NO-BREAK SPACE}")
            rows.append(f"| `{exercise}` | {ex.title} | {stars} | {minutes} | {ex.points:g} |")
    return "\n".join(rows)


def header(solved: nbformat.NotebookNode, name: str, repo: str, branch: str) -> str:
    """The cell under a lesson's title: its links, then its checks."""
    links = [f"[Download the notebook](path:../../notebooks/{name})"]
    url = colab_url(repo, branch, name) if repo else None
    if url:
        links.insert(0, f"[Open in Colab]({url})")
    return " · ".join(links) + "\n\n" + checks_table(solved)


def lesson(path: Path, repo: str = "", branch: str = "main") -> nbformat.NotebookNode:
    """The page of solved notebook ``path``: the student's cells, the solved outputs."""
    solved = load_notebook(path)
    page = student_notebook(solved, str(path.relative_to(ROOT)))  # no repo: no setup cells
    for cell, done in zip(page.cells, solved.cells, strict=True):
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = done.outputs, done.execution_count
    cell = nbformat.v4.new_markdown_cell(header(solved, path.name, repo, branch), id="site-links")
    page.cells.insert(1, cell)
    return page


def write_lessons(app) -> None:
    OUT.mkdir(exist_ok=True)
    repo, branch = app.config.course_repo, app.config.course_branch
    names = set()
    for path in solution_paths():
        names.add(path.name)
        sync(OUT / path.name, nbformat.writes(lesson(path, repo, branch)), check=False)
    for stale in OUT.glob("*.ipynb"):  # a notebook renamed or removed in solutions/
        if stale.name not in names:
            stale.unlink()


def setup(app):
    app.add_config_value("course_repo", "", "env")  # make site REPO=URL: Open in Colab
    app.add_config_value("course_branch", "main", "env")
    app.connect("builder-inited", write_lessons)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
