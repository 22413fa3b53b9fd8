"""Similar code in a class: ``--report`` with ``--similarity``, a section per exercise.

For each exercise, the code of its cell (``metadata.course.exercise``) in every student's
notebook, or, where the definition the grader runs stands in another cell (a stub left in its
own), that definition; ``exec``, ``eval`` or ``compile`` of text built at run time is listed
apart (:data:`OPAQUE`): code no comparison can read. Normalised: parsed, docstrings and comments
gone (formatting never matters to an AST), every local name renamed by order of first use
(``v0``, ``v1``...), attribute names (the torch API) and the modules torch, math, nn, F, np
kept, numbers bucketed. Each normalised token stream gives a set of k-grams (k = 6 tokens), less
those of the notebook's stub (the signature every student starts from). Two students are flagged
when one's k-grams lie for at least ``THRESHOLD`` (90 %) within the other's, and a student's
code when it lies that much within the course's reference (the solution cell). Code of fewer
than ``MIN_KGRAMS`` k-grams beyond the stub (a one-line mask) is too short to tell copying from
the one obvious answer, and is not judged.

Why our own normalisation rather than copydetect's (MOSS-style winnowing on pygments
tokens): on 20 planted classes of 30 (tests/grading/planted.py, ``python -m
tests.grading.bench_similarity``), at the same 95 % threshold, ours flagged the copied pair
in 16, the copy of the reference in 20 and 1 honest pair in all; copydetect the pair in
14-17 (depending on the hash seed: winnowing samples fingerprints by hash), the reference
in 0 (pygments reads ``q@k`` as a decorator, and the copy falls just under 95 %) and 37
honest pairs, because it renames the torch calls too, so honest code of the same shape
looks alike. The thresholds were chosen on those planted classes. Offline, standard
library only; 200 students in about 1.5 s.
"""

from __future__ import annotations

import ast
import functools
import itertools
import json
import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .bindings import BOUND, OPAQUE, _graded_bindings, _opaque_calls, _parse, _written

THRESHOLD = 0.95
MIN_KGRAMS = 12
MIN_RARE = 2  # k-grams (6 AST tokens each) the pair shares and few others write
K = 6
COMMON_MIN, COMMON_SHARE = 3, 0.1  # a k-gram in more submissions than this is common
KEEP = {"torch", "math", "nn", "F", "np", "functional", "True", "False", "None"}


def _strip_docstrings(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            body.pop(0)


class _NoHints(ast.NodeTransformer):
    """Type hints out: code with and without them is the same code (a tester removed them to
    hide a copy); ``x: T = v`` becomes ``x = v``, a bare ``x: T`` goes."""

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.annotation = None
        return node

    def visit_FunctionDef(self, node):
        node.returns = None
        return self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_AnnAssign(self, node: ast.AnnAssign):
        return None if node.value is None else ast.Assign(targets=[node.target], value=node.value)


def _bucket(value) -> str:
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, (int, float)):
        return repr(value) if value in (-2, -1, 0, 1, 2) else type(value).__name__
    return type(value).__name__


def normalize(source: str) -> list[str] | None:
    """The code as a token stream that ignores names, comments, docstrings, type hints and
    layout; None for code that cannot be parsed or is nested too deeply to walk (``-`` 100,000
    times raises MemoryError in the parser, a sum of 500 terms RecursionError in a visitor)."""
    tree = _parse(source)
    if tree is None:
        return None
    names: dict[str, str] = {}

    def name(n: str) -> str:
        return n if n in KEEP else names.setdefault(n, f"v{len(names)}")

    def walk(node) -> Iterator[str]:
        if isinstance(node, ast.expr_context):
            return
        yield type(node).__name__
        if isinstance(node, ast.Name):
            yield name(node.id)
        elif isinstance(node, ast.arg):
            yield name(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            yield name(node.name)
        elif isinstance(node, ast.Attribute):
            yield node.attr
        elif isinstance(node, ast.Constant):
            yield _bucket(node.value)
        for child in ast.iter_child_nodes(node):
            yield from walk(child)

    try:
        _strip_docstrings(tree)
        return list(walk(_NoHints().visit(tree)))
    except (RecursionError, MemoryError):
        return None


def kgrams(tokens: list[str], k: int = K) -> set[int]:
    return {hash(tuple(tokens[i : i + k])) for i in range(max(0, len(tokens) - k + 1))}


def fingerprint(source: str, stub: set[int] = frozenset()) -> set[int] | None:
    tokens = normalize(source)
    return None if tokens is None else kgrams(tokens) - stub


def overlap(a: set[int], b: set[int]) -> float:
    """How much of the smaller of two k-gram sets lies within the other (0..1)."""
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


@dataclass
class Finding:
    exercise: str
    first: str  # a submission's label
    second: str  # another's, or "the reference"
    score: float


def exercise_cells(path: Path) -> dict[str, str]:
    """``{exercise id: the code of its cell(s)}`` of a notebook file ({} if unreadable), read as
    grading reads a submission: no link, the code cells alone (reading/cells.py), and the parse
    in a child process under READ_MEMORY and READ_SECONDS (a notebook nested 200,000 deep, or
    of 57 MB, once crashed the report or took it to 1.5 GB)."""
    from ..limits import READ_MEMORY, READ_SECONDS
    from ..reading.isolate import IsolatedError, call_limited

    if path.is_symlink():
        return {}
    try:
        found = call_limited(
            lambda: _exercise_cells(path), memory_bytes=READ_MEMORY, seconds=READ_SECONDS
        )
    except IsolatedError:
        return {}
    return found if isinstance(found, dict) else {}


def _exercise_cells(path: Path) -> dict[str, str]:
    from ..reading.cells import read_cells

    try:
        cells = read_cells(path)["cells"]
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return {}
    out: dict[str, str] = {}
    code: list[tuple] = []  # (the cell's exercise or None, its source) of every code cell
    for cell in cells if isinstance(cells, list) else []:
        meta = cell.get("metadata", {}) if isinstance(cell, dict) else {}
        ex = meta.get("course", {}).get("exercise") if isinstance(meta, dict) else None
        src = cell.get("source", "") if isinstance(cell, dict) else ""
        src = "".join(src) if isinstance(src, list) else src
        if isinstance(ex, str) and isinstance(src, str):
            out[ex] = out.get(ex, "") + src + "\n"
        if isinstance(cell, dict) and cell.get("cell_type") == "code" and isinstance(src, str):
            code.append((ex, src))
    trees = [(ex, t) for ex, t in ((ex, _parse(src)) for ex, src in code) if t is not None]
    bound = {}
    for ex, (cell, kind, text) in _graded_bindings(trees).items():
        # "" for a definition that can have scored; else how the code graded is not in it
        bound[ex] = "" if kind == "def" else text
        if kind == "def" and cell != ex:  # the code graded is elsewhere (a stub left in its
            out[ex] = text + "\n"  # cell): compare it
    out[BOUND] = json.dumps(bound)
    opaque = _opaque_calls([t for _, t in trees])
    if opaque:
        out[OPAQUE] = "; ".join(opaque)
    return out


@functools.cache
def course_cells(notebook: str) -> tuple[dict[str, str], dict[str, str]]:
    """The reference (solution) and the stub (student) code per exercise of ``notebook``."""
    from ...notebook_files import ROOT as root

    ref = next(iter(sorted((root / "solutions").glob(f"{notebook}_*.ipynb"))), None)
    stub = next(iter(sorted((root / "notebooks").glob(f"{notebook}_*.ipynb"))), None)
    return (
        exercise_cells(ref) if ref else {},
        exercise_cells(stub) if stub else {},
    )


def _common(prints) -> set[int]:
    """The k-grams in more than ``max(3, 10 %)`` of the submissions: the ways many students
    write the same thing (MOSS's ``-m``), which say nothing about copying."""
    counts: Counter = Counter()
    n = 0
    for fp in prints:
        counts.update(fp)
        n += 1
    limit = max(COMMON_MIN, math.ceil(COMMON_SHARE * n))
    return {h for h, c in counts.items() if c > limit}


def _pairs(prints: dict):
    return itertools.combinations(prints.items(), 2)


def _score(a: set[int], b: set[int], common: set[int]) -> float:
    """``overlap``, or 0 when the two share fewer than ``MIN_RARE`` k-grams that are not
    common: the same few lines many students write are no sign of copying."""
    shared = a & b
    return overlap(a, b) if len(shared - common) >= MIN_RARE else 0.0


def find_similar(codes: dict[str, dict[str, str]]) -> list[Finding]:
    """``codes``: label -> {exercise id: code}. The pairs of submissions, and the
    submissions and the reference, over ``THRESHOLD``."""
    found: list[Finding] = []
    by_ex: dict[str, dict[str, str]] = {}
    for label, per_ex in codes.items():
        for ex, code in per_ex.items():
            by_ex.setdefault(ex, {})[label] = code
    for ex, subs in sorted(by_ex.items()):
        reference, stub = course_cells(ex.split(".", 1)[0])
        base = fingerprint(stub.get(ex, "")) or set()
        prints = {lb: fingerprint(code, base) or set() for lb, code in sorted(subs.items())}
        prints = {lb: fp for lb, fp in prints.items() if len(fp) >= MIN_KGRAMS}
        common = _common(prints.values())
        ref = fingerprint(reference.get(ex, ""), base) if ex in reference else None
        others = [("the reference", ref)] if ref and len(ref) >= MIN_KGRAMS else []
        for a, b, score in itertools.chain(
            ((a, b, _score(fa, fb, common)) for (a, fa), (b, fb) in _pairs(prints)),
            ((lb, name, _score(prints[lb], fr, common)) for name, fr in others for lb in prints),
        ):
            if score >= THRESHOLD:
                found.append(Finding(ex, a, b, score))
    return found


def similar_in(subs, scored: set[tuple[str, str]] = frozenset()) -> list[Finding]:
    """:func:`find_similar` over submissions (anything with ``path``, ``label``), and a Finding
    under :data:`OPAQUE` (``second``: where) for each that runs code built at run time, and for
    each exercise it scored on (``scored``: (label, exercise id) with points) whose code is not
    in the notebook: the name bound by an import or an assignment, or no code but the stub's
    (the code that ran came from a decoded string, a file, a code object...)."""
    codes = {s.label: exercise_cells(Path(s.path)) for s in subs if not s.problem}
    opaque = [Finding(OPAQUE, lb, c.pop(OPAQUE), 1.0) for lb, c in codes.items() if OPAQUE in c]
    bound = {lb: json.loads(c.pop(BOUND, "{}")) for lb, c in codes.items()}
    from ...checks import EXERCISES

    for label, ex in sorted(scored):
        if label not in codes or not _written(EXERCISES.get(ex)):
            continue
        how = bound[label].get(ex, "no definition of it is in the notebook")
        if how:
            opaque.append(Finding(OPAQUE, label, f"{ex} scored, but {how}", 1.0))
    return find_similar(codes) + opaque
