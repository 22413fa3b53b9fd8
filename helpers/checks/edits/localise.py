"""The learner's own line (issue 39, item 4): where a failed check's fix lies in the learner's code.

The edit engine runs the other way round: search.py edits the course's reference until it does
what the learner's code does; here the learner's own definition (the function or class the check
was given, read from its cell or file) is edited, one edit at a time, with the same operators
(operators.py) and a few of a learner's own slips (:data:`RENAMES`, a name read in another's
place), and an edit is kept only if the edited code passes every case of the check at two seeds.
Its line is then the one to point at:

    own_source(candidate)          -> Own | None: the definition, its cell or file, its namespace
    search(own, passes, budget_s)  -> Found | None: the first edit whose code ``passes`` (the
                                      caller's oracle: every case at two seeds), within budget
    Found.where / Found.change     -> "in `softmax`, line 4 (`m = x.max()`)"; the edit, in words

A hint ladder, set by the instructor (``ATTN2VIT_HINTS``, :func:`level`): "fix" (the default:
the cause and the line; the edit when asked, ``check(..., fix=True)`` or the result's ``fix``),
"line" (never the edit), "cause" (no line either). The grader's feedback gives the line, never
the edit. After :data:`BUDGET_S` the search says nothing.

It runs the learner's code in the process it is called from: inline ``check()`` runs it in the
learner's own kernel, where that code already runs.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import inspect
import io
import linecache
import os
import re
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import torch

from .operators import SYMBOL, Edit, edits, strip_annotations
from .source import build, time_limit

#: the search's budget on top of the check, in seconds: past it, nothing is said
BUDGET_S = 2.0
#: the instructor's setting: how far up the hint ladder a check goes
HINTS_ENV = "ATTN2VIT_HINTS"
LEVELS = ("cause", "line", "fix")


def level() -> str:
    """The hint ladder's top rung, as the instructor set it (``ATTN2VIT_HINTS``): "cause" (no
    line), "line" (the line, never the edit) or "fix" (the edit too, when asked; the default)."""
    value = os.environ.get(HINTS_ENV, "").strip().lower()
    return value if value in LEVELS else "fix"


# --------------------------------------------------------------------------- the learner's code


@dataclass
class Own:
    """The learner's definition, as written: ``tree`` holds it alone (annotations stripped, the
    cell's line numbers kept), ``lines`` the cell or file it came from, ``ns`` its globals."""

    name: str
    tree: ast.Module
    lines: list[str]
    ns: dict
    filename: str = ""


def own_source(candidate: Any) -> Own | None:
    """The definition of ``candidate`` (a function, a class, or a module instance: its class) in
    the cell or file that holds it; None where it cannot be read or rebuilt alone (a closure, a
    lambda, a built-in, a definition made by exec without a source)."""
    obj = type(candidate) if isinstance(candidate, torch.nn.Module) else candidate
    with contextlib.suppress(ValueError):
        obj = inspect.unwrap(obj)
    if inspect.isfunction(obj):
        functions = [obj]
    elif isinstance(obj, type):
        functions = [inspect.unwrap(v.__func__ if isinstance(v, (staticmethod, classmethod)) else v)
                     for v in vars(obj).values()
                     if inspect.isfunction(v) or isinstance(v, (staticmethod, classmethod))]  # fmt: skip
        functions = [f for f in functions if inspect.isfunction(f)]
    else:
        return None
    if not functions or obj.__name__ == "<lambda>" or any(
        set(f.__code__.co_freevars) - {"__class__"} for f in functions  # super() reads __class__
    ):
        return None
    code, ns = functions[0].__code__, functions[0].__globals__
    lines = linecache.getlines(code.co_filename, ns)
    if not lines:
        return None
    try:
        cell = ast.parse("".join(lines))
    except (SyntaxError, ValueError):
        return None
    kind = ast.ClassDef if isinstance(obj, type) else (ast.FunctionDef, ast.AsyncFunctionDef)
    line = code.co_firstlineno
    found = [n for n in ast.walk(cell)
             if isinstance(n, kind) and n.name == obj.__name__
             and min([n.lineno] + [d.lineno for d in n.decorator_list]) <= line <= n.end_lineno]  # fmt: skip
    if not found:
        return None
    node = min(found, key=lambda n: n.end_lineno - n.lineno)  # the innermost
    tree = strip_annotations(ast.Module(body=[copy.deepcopy(node)], type_ignores=[]))
    return Own(obj.__name__, tree, lines, ns, code.co_filename)


# --------------------------------------------------------------------------- the edits


#: a learner's slip the reference's operators do not undo: a method or function of torch used in
#: its sibling's place (the learner-side direction of operators.SIBLING, and more)
RENAMES = {
    "view": ("reshape",), "repeat": ("repeat_interleave",), "repeat_interleave": ("repeat",),
    "max": ("amax",), "min": ("amin",), "amax": ("max",), "T": ("mT",), "mT": ("T",),
    "softmax": ("log_softmax",), "log_softmax": ("softmax",), "var": ("std",), "std": ("var",),
    "tril": ("triu",), "triu": ("tril",), "all": ("any",), "any": ("all",),
    "argmax": ("argmin",), "argmin": ("argmax",), "float": ("double",),
    "train": ("eval",), "eval": ("train",), "sqrt": ("rsqrt",), "rsqrt": ("sqrt",),
}  # fmt: skip


def candidate_edits(tree: ast.Module) -> Iterator[Edit]:
    """The edits tried on the learner's definition: the reference's operators (but for a swap of
    two layers, which is no one line), then names read in another's place, then the renames."""
    for edit in edits(tree):
        if "<->" not in edit.tag:
            yield edit
    yield from _name_edits(tree)
    yield from _rename_edits(tree)


def _name_edits(tree: ast.Module) -> Iterator[Edit]:
    """A name the code reads (a parameter or a local) replaced by another of the same function:
    ``k_proj(query)`` for ``k_proj(key)``."""
    nodes = list(ast.walk(tree))
    for function in (n for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        args = function.args
        known = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs if a.arg != "self"]
        known += [t.id for n in ast.walk(function) if isinstance(n, (ast.Assign, ast.For))
                  for t in ast.walk(n.targets[0] if isinstance(n, ast.Assign) else n.target)
                  if isinstance(t, ast.Name)]  # fmt: skip
        known = list(dict.fromkeys(known))
        for node in ast.walk(function):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in known:
                i = nodes.index(node)
                for other in known:
                    if other != node.id:
                        yield Edit(f"L{node.lineno} name {node.id} -> {other}",
                                   f"`{other}` instead of `{node.id}`",
                                   lambda t, i=i, other=other: _set(t, i, "id", other))  # fmt: skip


def _rename_edits(tree: ast.Module) -> Iterator[Edit]:
    nodes = list(ast.walk(tree))
    for i, node in enumerate(nodes):
        if isinstance(node, ast.Attribute) and node.attr in RENAMES:
            for new in RENAMES[node.attr]:
                yield Edit(f"L{node.lineno} .{node.attr} -> .{new}",
                           f"`.{new}` instead of `.{node.attr}`",
                           lambda t, i=i, new=new: _set(t, i, "attr", new))  # fmt: skip


def _set(tree: ast.AST, i: int, field: str, value: Any) -> None:
    setattr(list(ast.walk(tree))[i], field, value)


@contextlib.contextmanager
def quiet():
    """The learner's code run many times over: its prints and warnings hidden, torch's random
    state as it was before."""
    sink = io.StringIO()
    with torch.random.fork_rng(devices=[]), contextlib.redirect_stdout(sink), \
            contextlib.redirect_stderr(sink), warnings.catch_warnings():  # fmt: skip
        warnings.simplefilter("ignore")
        yield


def executed(own: Own, run: Callable[[], Any]) -> set[int]:
    """The lines of ``own`` that ``run()`` executes (the learner's failing case): an edit
    elsewhere cannot change what that case gives. Only the learner's own frames are traced."""
    lines: set[int] = set()

    def local(frame, event, arg):
        if event == "line":
            lines.add(frame.f_lineno)
        return local

    def calls(frame, event, arg):
        return local if frame.f_code.co_filename == own.filename else None

    previous = sys.gettrace()
    sys.settrace(calls)
    try:
        run()
    except Exception:
        pass
    finally:
        sys.settrace(previous)
    return lines


def ordered(own: Own, lines: set[int] | None) -> list[Edit]:
    """The edits to try: on the lines the failing case ran (all, where unknown), and the lines
    that define (a `def`, a class body), latest line first: a slip near the output is found
    before the many edits of a constructor."""
    defining = {n.lineno for n in ast.walk(own.tree) if isinstance(n, ast.stmt)
                and not _in_function(n, own.tree)}  # fmt: skip
    kept = [e for e in candidate_edits(own.tree)
            if lines is None or _line(e) in lines or _line(e) in defining]  # fmt: skip
    return sorted(kept, key=lambda e: -_line(e))


def _line(edit: Edit) -> int:
    return int(re.match(r"L(\d+)", edit.tag).group(1))


def _in_function(node: ast.AST, tree: ast.AST) -> bool:
    for f in ast.walk(tree):
        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f is not node:
            if f.lineno < node.lineno <= (f.end_lineno or f.lineno):
                return True
    return False


# --------------------------------------------------------------------------- the search


@dataclass(frozen=True)
class Found:
    """An edit of the learner's code that passes every case: where, and what it changes."""

    name: str  # the learner's function or class
    line: int  # the line of the cell or file, as its tracebacks number it
    text: str  # that line as the learner wrote it
    before: str  # what the edit replaces on it ("" for a line left out)
    after: str  # what it puts there ("" for a line left out)
    tag: str  # the edit, for the maintainer ("L7 Gt -> GtE")
    source: str  # the edited definition: it passes every case at two seeds

    @property
    def where(self) -> str:
        return f"in `{self.name}`, line {self.line} (`{_short(self.text)}`)"

    @property
    def change(self) -> str:
        """The edit in words: "with `>=` for `>` there"."""
        if not self.after and not self.before:
            return "without that line"
        if not self.before:
            return f"with `{self.after}` added there"
        if not self.after:
            return f"without `{self.before}` there"
        return f"with `{self.after}` for `{self.before}` there"

    def line_message(self, fix_shown: bool) -> str:
        """The hint: the line (rung 2), or the line and the edit (rung 3)."""
        if fix_shown:
            return f"{self.where}: {self.change}, every case passes."
        return (f"{self.where}: one change on this line makes every case pass "
                "(check(..., fix=True) shows it).")  # fmt: skip


def search(
    own: Own,
    passes: Callable[[Any], bool],
    budget_s: float = BUDGET_S,
    lines: set[int] | None = None,
) -> Found | None:
    """The first edit of ``own`` (:func:`ordered`, ``lines``: those the failing case ran) whose
    code ``passes`` (every case at two seeds, as the caller's oracle runs them), or None when
    none does within ``budget_s`` seconds. The learner's code runs with its output hidden and
    torch's random state kept as it was."""
    if threading.current_thread() is not threading.main_thread():
        return None  # no alarm there to stop an edit that loops forever
    deadline = time.perf_counter() + budget_s
    seen: set[str] = set()
    with quiet():
        for edit in ordered(own, lines):
            left = deadline - time.perf_counter()
            if left <= 0:
                return None
            mutant = copy.deepcopy(own.tree)
            try:
                edit.mutate(mutant)
                source = ast.unparse(ast.fix_missing_locations(mutant))
            except Exception:
                continue
            if source in seen:
                continue  # two edits that write the same code
            seen.add(source)
            try:
                obj = build(source, own.ns, own.name, f"learner {edit.tag}")
                with time_limit(left):
                    ok = passes(obj)
            except TimeoutError:
                return None
            except Exception:
                continue
            if ok:
                return _found(own, edit, mutant)
    return None


def _found(own: Own, edit: Edit, mutant: ast.Module) -> Found:
    line = _line(edit)
    text = own.lines[line - 1].strip() if line <= len(own.lines) else ""
    old, new = _statement(own.tree, line), _statement(mutant, line)
    before, after = ("", "") if old is None or new is None else _difference(old, new)
    return Found(own.name, line, text, before, after, edit.tag, ast.unparse(mutant))


def _statement(tree: ast.AST, line: int) -> ast.stmt | None:
    """The innermost statement that starts on ``line`` (None: it was left out)."""
    stmts = [n for n in ast.walk(tree) if isinstance(n, ast.stmt) and n.lineno == line]
    return min(stmts, key=lambda n: (n.end_lineno or n.lineno) - n.lineno) if stmts else None


#: the fields of a statement that hold other lines: an edit there is on another line
BODIES = ("body", "orelse", "finalbody", "handlers", "decorator_list")


def _difference(old: ast.AST, new: ast.AST) -> tuple[str, str]:
    """The smallest part of a statement that an edit changed, before and after: (">", ">="),
    ("query", "key"), ("(x - m).detach()", "x - m")."""
    a, b = _changed(old, new)
    if isinstance(a, (ast.operator, ast.cmpop, ast.unaryop)) and type(a) in SYMBOL:
        return SYMBOL[type(a)], SYMBOL.get(type(b), ast.unparse(b))
    return _text(a), _text(b)


def _changed(a: Any, b: Any) -> tuple[Any, Any]:
    """Down from two nodes that differ, while only one of their children differs."""
    while type(a) is type(b) and isinstance(a, ast.AST):
        fields = [f for f in a._fields if not (isinstance(a, ast.stmt) and f in BODIES)]
        differ = [f for f in fields if _dump(getattr(a, f, None)) != _dump(getattr(b, f, None))]
        if len(differ) != 1:
            break
        x, y = getattr(a, differ[0]), getattr(b, differ[0])
        if isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            pairs = [(u, v) for u, v in zip(x, y) if _dump(u) != _dump(v)]
            if len(pairs) != 1:
                break
            x, y = pairs[0]
        if not (isinstance(x, ast.AST) and isinstance(y, ast.AST)):
            break  # a name, a number, a list that grew or shrank: this node is the change
        a, b = x, y
    return a, b


def _dump(x: Any) -> str:
    if isinstance(x, list):
        return "[" + ", ".join(_dump(v) for v in x) + "]"
    return ast.dump(x) if isinstance(x, ast.AST) else repr(x)


def _text(node: ast.AST) -> str:
    if isinstance(node, ast.stmt) and any(getattr(node, f, None) for f in BODIES):
        node = copy.copy(node)  # a compound statement: its first line
        for f in BODIES:
            if getattr(node, f, None):
                setattr(node, f, [ast.Pass()] if f == "body" else [])
        return ast.unparse(node).splitlines()[0]
    if isinstance(node, ast.keyword):
        return f"{node.arg}={ast.unparse(node.value)}" if node.arg else ast.unparse(node)
    return ast.unparse(node)


def _short(text: str, most: int = 60) -> str:
    return text if len(text) <= most else text[: most - 3] + "..."
