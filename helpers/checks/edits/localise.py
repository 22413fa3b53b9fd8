"""The learner's own line (issue 39, item 4): where a failed check's fix lies in the learner's code.

The edit engine runs the other way round: search.py edits the course's reference until it does
what the learner's code does; here the learner's own definition (the function or class the check
was given, read from its cell or file) is edited, one edit at a time, with the same operators
(operators.py) and a learner's own slips (repairs.py: a name read in another's place, a device
not given, an in-place step...), and an edit is kept only if the edited code passes every case
of the check at two seeds. Its line is then the one to point at:

    own_source(candidate)        -> Own | None: the definition, its cell or file, its namespace
    search(own, passes, s, tried) -> Found | None: the first edit of ``tried`` (in the order
                                    helpers.checks.candidates gives) whose code ``passes`` (the
                                    caller's oracle: every case at two seeds), within s seconds
    Found.where / Found.change   -> "in `softmax`, line 4 (`m = x.max()`)"; the edit, in words

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
import tempfile
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from .operators import SYMBOL, Edit, strip_annotations
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
        methods = (staticmethod, classmethod)
        functions = [v.__func__ if isinstance(v, methods) else v for v in vars(obj).values()]
        functions = [inspect.unwrap(f) for f in functions if inspect.isfunction(f)]
    else:
        return None
    free = {v for f in functions for v in f.__code__.co_freevars} - {"__class__"}  # super()
    if not functions or obj.__name__ == "<lambda>" or free:
        return None
    code, ns = functions[0].__code__, functions[0].__globals__
    lines = linecache.getlines(code.co_filename, ns)
    kind = "class" if isinstance(obj, type) else "def"
    return own_in_text(lines, obj.__name__, kind, code.co_firstlineno, ns, code.co_filename)


def own_in_text(
    lines: list[str],
    name: str,
    kind: str = "",
    line: int = 0,
    ns: dict | None = None,
    filename: str = "",
) -> Own | None:
    """The definition of ``name`` (``kind``: "def" or "class", "" either) in a cell's or file's
    ``lines``, parsed and never run: the one around ``line``, else the last at the top level."""
    try:
        cell = ast.parse("".join(lines))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    kinds = {"def": (ast.FunctionDef, ast.AsyncFunctionDef), "class": (ast.ClassDef,)}
    wanted = kinds.get(kind, kinds["def"] + kinds["class"])
    if line:
        found = [n for n in ast.walk(cell) if isinstance(n, wanted) and n.name == name
                 and min([n.lineno] + [d.lineno for d in n.decorator_list]) <= line
                 <= n.end_lineno]  # fmt: skip
    else:
        found = [n for n in cell.body if isinstance(n, wanted) and n.name == name][-1:]
    if not found:
        return None
    node = min(found, key=lambda n: n.end_lineno - n.lineno)  # the innermost
    tree = strip_annotations(ast.Module(body=[copy.deepcopy(node)], type_ignores=[]))
    return Own(name, tree, list(lines), {} if ns is None else ns, filename)


@contextlib.contextmanager
def quiet():
    """The learner's code run many times over: its prints and warnings hidden, torch's random
    state as it was before, and what it writes to a relative path written in a scratch folder
    (an edit of ``torch.save(..., f"{path}.model")`` may name a file after another argument)."""
    sink, here = io.StringIO(), os.getcwd()
    with torch.random.fork_rng(devices=[]), contextlib.redirect_stdout(sink), \
            contextlib.redirect_stderr(sink), warnings.catch_warnings(), \
            contextlib.ExitStack() as stack:  # fmt: skip
        warnings.simplefilter("ignore")
        with contextlib.suppress(OSError):  # no scratch folder to be had: where it is
            os.chdir(stack.enter_context(tempfile.TemporaryDirectory(prefix="attn2vit-edit-")))
            stack.callback(os.chdir, here)
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


def ordered(own: Own, lines: set[int] | None, every: list[Edit], first: set[str]) -> list[Edit]:
    """The edits to try (``every``: helpers.checks.candidates makes them, of edits/repairs.py and
    edits/tensors.py): on the lines the failing case ran (all, where unknown), and the lines that
    define (a `def`, a class body); those of ``first`` (few, and often the fix: what is never used
    put to use, a device given, a state call left out...) first, then the latest line first: a
    slip near the output is found before the many edits of a constructor."""
    defining = {n.lineno for n in ast.walk(own.tree) if isinstance(n, ast.stmt)
                and not _in_function(n, own.tree)}  # fmt: skip
    kept = [e for e in every if lines is None or _line(e) in lines or _line(e) in defining]
    return sorted(kept, key=lambda e: (e.tag not in first, -_line(e)))


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
        for kept in (self.after, f"({self.after})"):  # a call left out: x.detach() -> x
            if self.before.startswith(kept + ".") and self.before.endswith(")"):
                return f"without `{self.before[len(kept) :]}` there"
        return f"with `{self.after}` for `{self.before}` there"

    def line_message(self, fix_shown: bool, ask: str = " (check(..., fix=True) shows it)") -> str:
        """The hint: the line (rung 2; ``ask``: how to see the edit), or the line and the edit
        (rung 3)."""
        if fix_shown:
            return f"{self.where}: {self.change}, every case passes."
        return f"{self.where}: one change on this line makes every case pass{ask}."


def search(
    own: Own,
    passes: Callable[[str], bool],
    budget_s: float,
    tried: list[Edit],
) -> Found | None:
    """The first edit of ``tried`` (:func:`ordered`'s list) whose edited code of ``own``
    passes: ``passes(source)``, the edited definition's source, runs every case at two
    seeds (:func:`runner` builds such a function for the process it is in; the grader runs the
    source in the learner's kernel). None when no edit passes within ``budget_s`` seconds."""
    if threading.current_thread() is not threading.main_thread():
        return None  # no alarm there to stop an edit that loops forever
    deadline = time.perf_counter() + budget_s
    seen: set[str] = set()
    for edit in tried:
        left = deadline - time.perf_counter()
        if left <= 0:
            return None
        mutant = copy.deepcopy(own.tree)
        try:
            edit.mutate(mutant)
            mutant = _Tidy().visit(mutant)
            source = ast.unparse(ast.fix_missing_locations(mutant))
        except Exception:
            continue
        if source in seen:
            continue  # two edits that write the same code
        seen.add(source)
        try:
            with time_limit(left):
                ok = passes(source)
        except TimeoutError:
            return None
        except Exception:
            continue
        if ok:
            return _found(own, edit, mutant)
    return None


def runner(own: Own, passes: Callable[[Any], bool]) -> Callable[[str], bool]:
    """``passes`` for the objects of this process, as :func:`search` calls it: the edited
    source built in the learner's namespace, run quietly (:func:`quiet`)."""

    def run(source: str) -> bool:
        obj = build(source, own.ns, own.name, "learner's edit")
        with quiet():
            return passes(obj)

    return run


class _Tidy(ast.NodeTransformer):
    """`-0` (an edit of `-1`) written `0`."""

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        zero = isinstance(node.operand, ast.Constant) and node.operand.value == 0
        if isinstance(node.op, ast.USub) and zero and type(node.operand.value) is int:
            return ast.copy_location(ast.Constant(0), node)
        return node


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
    ("k_proj(query)", "k_proj(key)"), ("(x - m).detach()", "x - m"). A name or a number is
    shown with what holds it, and an operator that the line has twice too: one `a` of three."""
    (a, b), (pa, pb) = _changed(old, new)
    line = ast.unparse(old)
    if isinstance(a, (ast.operator, ast.cmpop, ast.unaryop)) and type(a) in SYMBOL:
        symbols = SYMBOL[type(a)], SYMBOL.get(type(b), ast.unparse(b))
        if line.count(f" {symbols[0]} ") <= 1 or pa is None:
            return symbols
        a, b = pa, pb
    elif isinstance(a, (ast.Name, ast.Constant, ast.Attribute)) and pa is not None:
        a, b = pa, pb
    return _text(a), _text(b)


def _changed(a: Any, b: Any) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """Down from two nodes that differ, while only one of their children differs: that pair,
    and the pair of expressions above it (None where there is none)."""
    above: tuple[Any, Any] = (None, None)
    while type(a) is type(b) and isinstance(a, ast.AST):
        if isinstance(a, ast.expr) and (above[0] is None or len(ast.unparse(above[0])) > 40):
            above = (a, b)  # the widest expression of at most 40 characters above the change
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
    return (a, b), above


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
