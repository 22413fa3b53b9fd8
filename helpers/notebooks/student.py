"""Solved notebooks -> student notebooks (``python -m helpers student``).

In a solved notebook, each ``### BEGIN SOLUTION`` ... ``### END SOLUTION`` region (nbgrader's
markers) holds the answer. The student version replaces the region by a TODO comment (with
the built-ins the exercise's check switches off, read from the check) and
``raise NotImplementedError(...)`` at the same indentation (a region that only assigns one
name, a question's answer, by ``name = ...``; in a markdown cell, by "_Your answer here._"),
clears outputs and execution counts, and drops ``# NBVAL_`` lines.
Text after ``### BEGIN SOLUTION:`` becomes the TODO's wording.

With ``--repo URL`` (``make student REPO=URL``, or ``HELPERS_REPO`` in the environment) every
student notebook also starts with an "Open in Colab" badge (for a GitHub URL) and a cell that
installs ``helpers`` from that repository where it is missing (Colab, a JupyterHub): see
``colab_cells``. Without it the notebooks are as above.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import nbformat

from .common import (
    BEGIN,
    END,
    NBVAL_LINE,
    ROOT,
    MarkerError,
    load_notebook,
    report,
    solution_paths,
    sync,
)

# https://github.com/OWNER/NAME(.git), git@github.com:OWNER/NAME(.git), with or without git+
GITHUB = re.compile(
    r"^(?:git\+)?(?:https?://|ssh://git@|git@)github\.com[/:]([^/]+)/(.+?)(?:\.git)?/?$"
)
REPO_ENV = "HELPERS_REPO"  # the default of --repo
COLAB_BADGE = "https://colab.research.google.com/assets/colab-badge.svg"
INSTALL_CELL = """\
# Where `helpers` is not installed (Colab, a JupyterHub): install it, once, from the course's
# repository. A torch already there is kept (Colab's); where there is none, the CPU build.
# Everywhere else this cell does nothing. HELPERS_SOURCE overrides where it comes from.
import importlib
import importlib.util
import os
import subprocess
import sys

SOURCE = os.environ.get("HELPERS_SOURCE") or {source}

if importlib.util.find_spec("helpers") is None:
    pip = [sys.executable, "-m", "pip", "install", "--quiet"]
    if importlib.util.find_spec("torch") is None:
        cpu = "https://download.pytorch.org/whl/cpu"
        subprocess.run(pip + ["torch", "--index-url", cpu], check=True)
    subprocess.run(pip + [SOURCE], check=True)
    importlib.invalidate_caches()"""


@dataclass
class Region:
    start: int  # line index of BEGIN
    end: int  # line index of END
    indent: str
    todo: str


def find_regions(lines: list[str], where: str) -> list[Region]:
    regions, open_at = [], None
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(BEGIN):
            if open_at is not None:
                raise MarkerError(
                    f"{where}, line {i + 1}: nested {BEGIN} (the one on line "
                    f"{open_at + 1} is not closed)"
                )
            open_at = i
        elif stripped.startswith(END):
            if open_at is None:
                raise MarkerError(f"{where}, line {i + 1}: {END} without a {BEGIN}")
            begin = lines[open_at]
            todo = begin.strip()[len(BEGIN) :].lstrip(":").strip()
            regions.append(Region(open_at, i, begin[: len(begin) - len(begin.lstrip())], todo))
            open_at = None
    if open_at is not None:
        raise MarkerError(f"{where}, line {open_at + 1}: {BEGIN} is never closed by {END}")
    return regions


#: how a learner writes a built-in of these modules (others: their dotted name, torch.nn -> nn)
WRITTEN = {"torch.nn.functional": "F", "torch.functional": "torch", "torch.nn.utils.clip_grad":
           "nn.utils"}  # fmt: skip


def switched_off(exercise: str | None) -> list[str]:
    """The built-ins the check of ``exercise`` switches off, as a learner writes them, qualified
    so that the learner's own function of the same name is not mistaken for one
    (``torch.nn.functional.softmax`` -> F.softmax, ``torch.nn.LayerNorm.forward`` ->
    nn.LayerNorm; the dispatcher's ``aten.*`` and ``torch._C`` names left out): from the check."""
    from ..checks import EXERCISES

    ex = EXERCISES.get(exercise or "")
    names = []
    for dotted in ex.forbid if ex else ():
        owner, last = dotted.rsplit(".", 1)
        if owner == "aten" or owner.startswith("torch._C"):
            continue
        if last == "forward":
            name = f"nn.{owner.rsplit('.', 1)[1]}"
        else:
            name = f"{WRITTEN.get(owner, re.sub(r'^torch[.]nn[.]', 'nn.', owner))}.{last}"
        if name not in names:
            names.append(name)
    return names


def _off_lines(indent: str, names: list[str]) -> list[str]:
    """Comment lines naming ``names`` as switched off, each under 100 characters."""
    text = f"The check switches these off while it runs your code: {', '.join(names)}."
    return [f"{indent}# {line}" for line in textwrap.wrap(text, 96 - len(indent))]


#: a region that only assigns a value to one name (a question's answer, checks/questions.py)
ANSWER = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*[^=\n][^\n]*$")


def strip_code(source: str, where: str, exercise: str | None) -> str:
    lines = source.split("\n")
    out, last = [], 0
    off = switched_off(exercise)
    for r in find_regions(lines, where):
        out += lines[last : r.start]
        answer = ANSWER.match("\n".join(lines[r.start + 1 : r.end]))  # `name = value` alone
        if answer:  # a question's answer: the name stays, its value is the learner's
            out.append(f"{r.indent}{answer[1]} = ...  # TODO: {r.todo or 'your answer'}")
            last = r.end + 1
            continue
        out.append(f"{r.indent}# TODO: {r.todo or 'your code here'}")
        out += _off_lines(r.indent, off) if off else []
        off = []  # said once, at the cell's first TODO
        label = f"{exercise}: " if exercise else ""
        out.append(f'{r.indent}raise NotImplementedError("{label}fill in this TODO")')
        last = r.end + 1
    out += lines[last:]
    return "\n".join(line for line in out if not NBVAL_LINE.match(line))


def strip_markdown(source: str, where: str) -> str:
    lines = source.split("\n")
    out, last = [], 0
    for r in find_regions(lines, where):
        out += lines[last : r.start] + ["_Your answer here._"]
        last = r.end + 1
    return "\n".join(out + lines[last:])


def student_notebook(
    nb: nbformat.NotebookNode, name: str, repo: str = "", branch: str = "main"
) -> nbformat.NotebookNode:
    """The student version of a solved notebook (a new object; ``nb`` is not changed); with
    ``repo``, opened by the badge and install cell of the course published there."""
    nb = copy.deepcopy(nb)
    for index, cell in enumerate(nb.cells):
        where = f"{name}, cell {index + 1}"
        course = cell.metadata.get("course", {})
        if cell.cell_type == "code":
            cell.source = strip_code(cell.source, where, course.get("exercise"))
            cell.outputs = []
            cell.execution_count = None
            cell.metadata.pop("execution", None)
        elif cell.cell_type == "markdown":
            cell.source = strip_markdown(cell.source, where)
        cell.metadata.pop("collapsed", None)
        cell.metadata.pop("scrolled", None)
    nb.metadata.pop("widgets", None)
    nb.metadata.setdefault("course", {})["student"] = True
    if repo:
        nb.cells[:0] = colab_cells(repo, branch, Path(name).name)
    return nb


def pip_source(repo: str, branch: str) -> str:
    """What the install cell gives pip: ``git+URL@BRANCH`` for a remote repository, a local
    path (a folder or a built wheel) as it is."""
    if re.match(r"^(git\+|https?://|ssh://|git@)", repo):
        return f"{repo if repo.startswith('git+') else 'git+' + repo}@{branch}"
    return repo


def colab_url(repo: str, branch: str, name: str) -> str | None:
    """Where Colab opens student notebook ``name`` of the course published at ``repo``; None
    when ``repo`` is not on GitHub (Colab opens notebooks from GitHub only)."""
    github = GITHUB.match(repo)
    if not github:
        return None
    owner, project = github.groups()
    colab = "https://colab.research.google.com/github"
    return f"{colab}/{owner}/{project}/blob/{branch}/notebooks/{name}"


def colab_cells(repo: str, branch: str, name: str) -> list[nbformat.NotebookNode]:
    """The cells that open student notebook ``name`` when the course is published at ``repo``:
    the Colab badge (GitHub only: Colab opens notebooks from GitHub, not from other hosts),
    then the install cell."""
    source = INSTALL_CELL.format(source=json.dumps(pip_source(repo, branch)))
    cells = [nbformat.v4.new_code_cell(source, id="setup-install")]
    url = colab_url(repo, branch, name)
    if url:
        badge = f"[![Open In Colab]({COLAB_BADGE})]({url})"
        cells.insert(0, nbformat.v4.new_markdown_cell(badge, id="setup-colab"))
    for cell in cells:
        cell.metadata["course"] = {"setup": True}
    return cells


def render(nb: nbformat.NotebookNode) -> str:
    return nbformat.writes(nb) + "\n"


def generate(
    root: Path = ROOT, check: bool = False, repo: str | None = None, branch: str = "main"
) -> list[str]:
    """Write (or, with ``check``, compare) notebooks/ from solutions/. Returns the problems.
    ``repo``: where the course is published (None: ``$HELPERS_REPO``; empty: nowhere)."""
    repo = os.environ.get(REPO_ENV, "") if repo is None else repo
    problems, expected = [], set()
    out_dir = root / "notebooks"
    out_dir.mkdir(exist_ok=True)
    for path in solution_paths(root):
        nb = load_notebook(path)
        student = student_notebook(nb, str(path.relative_to(root)), repo, branch)
        nbformat.validate(student)
        text = render(student)
        target = out_dir / path.name
        expected.add(target.name)
        wrong = sync(target, text, check)
        if wrong:
            problems.append(f"{target.relative_to(root)} {wrong}")
    for extra in sorted(out_dir.glob("*.ipynb")):
        if extra.name not in expected:
            problems.append(f"{extra.relative_to(root)} has no solved notebook in solutions/")
    return problems


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--check", action="store_true", help="exit 1 if notebooks/ is not current")
    p.add_argument(
        "--repo",
        default=None,
        help=f"the git URL (or a local path) the course is published at: a Colab badge and an "
        f"install cell open every notebook (default ${REPO_ENV}; none when empty)",
    )
    p.add_argument("--branch", default="main", help="--repo's branch (default main)")


def run(args: argparse.Namespace) -> int:
    make = lambda check: generate(check=check, repo=args.repo, branch=args.branch)
    return report("student", make, args.check)
