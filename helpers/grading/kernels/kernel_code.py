"""The check code a grading kernel gets: what runs the learner's objects, and nothing that judges.

A grading kernel calls the learner's objects on the grader's probes (kernel_side.py) with the
check package's runner; it never judges. So it gets only the code that calling needs: starting
from the runner's entry points and the runner methods (``run_*``) of the graded notebook's
exercises, the module-level functions, classes and constants those use, found by following
names through the sources (and ``from .x import y`` across modules). Everything else is left
out of the text sent: the float64 references (``references.py``, ``nbNN_reference.py``,
formulas in a notebook's own check module), the judges, the other notebooks' checks. What is
not in the kernel cannot be called, whatever a submission does with threads, code objects or
the garbage collector.

Rules, on the sources' syntax trees:

- an exercise class (one that sets ``id``) or a mixin of runners (one with ``run_*`` methods)
  keeps its attributes, its dunder methods, its ``run_*`` methods and every method whose name
  the kept code reads as an attribute (``self.helper(...)``); its other methods (``judge``,
  ``probes``, references written as methods) are removed; other classes are kept whole;
- a module-level name is kept when kept code reads it (a decorator, a base class, a default
  value...); statements that define no name (a loop filling a table) are kept and read.

A name looked up only dynamically (``getattr(mod, "name")``) is not followed: the full-marks
test of the solved notebooks (tests/grading/test_solutions_full_marks.py) shows that nothing
the runners need is lost.
"""

from __future__ import annotations

import ast
import re

# the names kernel_side.py uses, by module
ENTRY = {"runner": ("run_probe",), "framework": ("Probe", "Unsupported", "REGISTRY")}
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _is_exercise(node: ast.stmt) -> bool:
    """A class that sets an exercise ``id`` (the framework registers it), or declares it (the
    base class)."""
    if not isinstance(node, ast.ClassDef):
        return False
    assigned = [t for s in node.body if isinstance(s, ast.Assign) for t in s.targets]
    assigned += [s.target for s in node.body if isinstance(s, ast.AnnAssign)]
    return any(isinstance(t, ast.Name) and t.id == "id" for t in assigned)


def _registered(node: ast.stmt) -> bool:
    """An exercise the framework registers: a class that assigns its ``id`` a string."""
    return isinstance(node, ast.ClassDef) and any(
        isinstance(s, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "id" for t in s.targets)
        and isinstance(s.value, ast.Constant)
        and bool(s.value.value)
        for s in node.body
    )


def _read_names(nodes) -> tuple[set[str], set[str]]:
    """(names read, attribute names read) in ``nodes``."""
    names, attrs = set(), set()
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
                names.add(sub.id)
            elif isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Load):
                attrs.add(sub.attr)
    return names, attrs


def _bound(stmt: ast.stmt) -> list[str]:
    """The module-level names a statement defines (empty: it defines none)."""
    if isinstance(stmt, _DEFS):
        return [stmt.name]
    if isinstance(stmt, ast.Assign):
        return [n.id for t in stmt.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return [stmt.target.id]
    return []


class _Module:
    def __init__(self, text: str):
        self.tree = ast.parse(text)
        self.defs: dict[str, ast.stmt] = {}
        self.imports: dict[str, tuple[str, str]] = {}  # local name -> (sibling module, its name)
        self.free: list[ast.stmt] = []  # statements that define no name: always kept
        for stmt in self.tree.body:
            if isinstance(stmt, ast.ImportFrom) and stmt.level == 1:
                for a in stmt.names:
                    self.imports[a.asname or a.name] = (stmt.module or "", a.name)
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                continue  # torch, math...: kept as they are
            elif _bound(stmt):
                for name in _bound(stmt):
                    self.defs[name] = stmt
            else:
                self.free.append(stmt)


def _checks_side(stmt: ast.stmt) -> bool:
    """An exercise or a mixin of runners: a class whose unused methods are left out (other
    classes, a model the runner builds or an exception, are kept whole: Python calls their
    methods by itself, ``forward`` through ``__call__``)."""
    return isinstance(stmt, ast.ClassDef) and (
        _is_exercise(stmt) or any(_is_method(s) and s.name.startswith("run_") for s in stmt.body)
    )


def _kept_parts(stmt: ast.stmt, attrs: set[str]) -> list[ast.stmt]:
    """The parts of a definition whose names count as read (a class: without unused methods)."""
    if not _checks_side(stmt):
        return [stmt]
    parts = [*stmt.bases, *stmt.keywords, *stmt.decorator_list]
    for s in stmt.body:
        if not _is_method(s) or _method_kept(s.name, attrs):
            parts.append(s)
    return parts


def _method_kept(name: str, attrs: set[str]) -> bool:
    dunder = name.startswith("__") and name.endswith("__")
    return name.startswith("run_") or dunder or name in attrs


def _is_method(stmt: ast.stmt) -> bool:
    return isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))


def reachable(sources: dict[str, str], notebook: str | None) -> tuple[dict[str, set[str]], set]:
    """({module: names kept}, attribute names read) from the entry points and the notebook's
    exercises."""
    mods = {name: _Module(text) for name, text in sources.items()}
    work = [(m, n) for m, names in ENTRY.items() if m in mods for n in names]
    for name, mod in mods.items():
        if notebook is not None and re.match(rf"^nb{notebook}(_|$)", name):
            work += [(name, n) for n, s in mod.defs.items() if _registered(s)]
    kept: dict[str, set[str]] = {name: set() for name in mods}
    attrs: set[str] = set()
    scanned: set[tuple[str, int]] = set()  # (module, id of a part) already read
    free_read = set()
    while True:
        while work:
            m, n = work.pop()
            mod = mods.get(m)
            if mod is None or n in kept[m]:
                continue
            if n in mod.imports:
                kept[m].add(n)
                work.append(mod.imports[n])
                continue
            if n not in mod.defs:
                continue  # a builtin or a name from an outside import
            kept[m].add(n)
            if m not in free_read:  # a module's unnamed statements run when it loads
                free_read.add(m)
                read, read_attrs = _read_names(mod.free)
                attrs |= read_attrs
                work += [(m, x) for x in read]
                work += [  # a sibling imported inside a statement (try: from .device import ...)
                    (node.module or "", a.name)
                    for node in ast.walk(ast.Module(body=mod.free, type_ignores=[]))
                    if isinstance(node, ast.ImportFrom) and node.level == 1
                    for a in node.names
                ]
        # read the kept definitions (again: a class's methods depend on the attributes read)
        before = len(attrs)
        for m, names in kept.items():
            mod = mods[m]
            for n in names:
                if n in mod.imports:
                    continue
                for part in _kept_parts(mod.defs[n], attrs):
                    if (m, id(part)) in scanned:
                        continue
                    scanned.add((m, id(part)))
                    read, read_attrs = _read_names([part])
                    attrs |= read_attrs
                    work += [(m, x) for x in read]
        if not work and len(attrs) == before:
            return kept, attrs


def _strip(text: str, names: set[str], attrs: set[str]) -> str:
    mod = _Module(text)
    body = []
    for stmt in mod.tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.level == 1:
            stmt.names = [a for a in stmt.names if (a.asname or a.name) in names]
            if not stmt.names:
                continue
        elif _bound(stmt):
            if not any(n in names for n in _bound(stmt)):
                continue
            if _checks_side(stmt):
                stmt.body = [
                    s for s in stmt.body if not _is_method(s) or _method_kept(s.name, attrs)
                ] or [ast.Pass()]
        body.append(stmt)
    mod.tree.body = body
    return ast.unparse(mod.tree) + "\n"


def kernel_sources(
    sources: dict[str, tuple[str, str]], notebook: str | None
) -> dict[str, tuple[str, str]]:
    """The modules of ``sources`` ({stem: (filename, text)}) cut down to what the kernel needs
    to run ``notebook``'s exercises; modules with nothing kept are left out."""
    texts = {stem: text for stem, (_, text) in sources.items()}
    kept, attrs = reachable(texts, notebook)
    out = {}
    for stem, names in kept.items():
        is_nb = notebook is not None and re.match(rf"^nb{notebook}(_|$)", stem)
        if names or stem in ENTRY or is_nb:
            out[stem] = (sources[stem][0], _strip(texts[stem], names, attrs))
    return out
