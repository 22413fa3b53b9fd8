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

from .operators import SYMBOL, Edit, _replace, edits, strip_annotations
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
    """The edits tried on the learner's definition: what is built or given and never used, put
    to use; the reference's operators (but for a swap of two layers, no one line); a side of an
    operator left out; names read in another's place; the renames."""
    yield from _unused_edits(tree)
    for edit in edits(tree):
        if "<->" not in edit.tag:
            yield edit
    yield from _side_edits(tree)
    yield from _name_edits(tree)
    yield from _rename_edits(tree)


def _at(i: int, fn: Callable[[ast.AST, ast.AST], None]) -> Callable[[ast.AST], None]:
    """fn(root, node) on the node that is the i-th of a copy's walk, as it is of the original's."""
    return lambda t: fn(t, list(ast.walk(t))[i])


def _unused_edits(tree: ast.Module) -> Iterator[Edit]:
    """A layer built in ``__init__`` and never called, called on a value of ``forward`` (the
    dropout left out); an argument never read, read in a number's place (0 for ``pad_id``) or
    passed on to one of the learner's calls (the mask not passed to the blocks)."""
    nodes = list(ast.walk(tree))
    parent = {id(c): p for p in nodes for c in ast.iter_child_nodes(p)}
    for cls in (n for n in nodes if isinstance(n, ast.ClassDef)):
        made, used = set(), set()
        for f in (n for n in cls.body if isinstance(n, ast.FunctionDef)):
            for a in ast.walk(f):
                if isinstance(a, ast.Attribute) and ast.unparse(a.value) == "self":
                    if f.name == "__init__" and isinstance(a.ctx, ast.Store):
                        made.add(a.attr)
                    elif isinstance(a.ctx, ast.Load):
                        used.add(a.attr)
        for layer in sorted(made - used):
            for i, node in enumerate(nodes):
                if _value(node, parent) and not _in_init(node, parent):
                    yield Edit(f"L{node.lineno} self.{layer}(...) around", f"`self.{layer}` used",
                               _at(i, lambda t, n, layer=layer: _wrap(t, n, layer)))  # fmt: skip
    for f in (n for n in nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        read = {n.id for n in ast.walk(f) if isinstance(n, ast.Name)}
        for name in [a.arg for a in f.args.args + f.args.kwonlyargs if a.arg not in read]:
            for node in ast.walk(f):
                i = nodes.index(node)
                if isinstance(node, ast.Constant) and type(node.value) in (int, float, str):
                    yield Edit(f"L{node.lineno} {node.value!r} -> {name}", f"`{name}` used",
                               _at(i, lambda t, n, name=name: _read(t, n, name)))  # fmt: skip
                elif isinstance(node, ast.Call) and _own_call(node):
                    yield Edit(f"L{node.lineno} {name} passed on", f"`{name}` passed on",
                               _at(i, lambda _, n, name=name: _pass_on(n, name)))  # fmt: skip


def _read(tree: ast.AST, node: ast.AST, name: str) -> None:
    _replace(tree, node, ast.Name(name))


def _pass_on(call: ast.Call, name: str) -> None:
    call.args.append(ast.Name(name))


def _value(node: ast.AST, parent: dict) -> bool:
    """A value a layer could be called on: a name or a call read in an expression."""
    if not (isinstance(node, ast.Call) or isinstance(node, ast.Name) and node.id != "self"):
        return False
    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
        return False
    up = parent.get(id(node))
    return not (isinstance(up, ast.Attribute) or isinstance(up, ast.Call) and up.func is node)


def _in_init(node: ast.AST, parent: dict) -> bool:
    while id(node) in parent:
        node = parent[id(node)]
        if isinstance(node, ast.FunctionDef):
            return node.name == "__init__"
    return True


def _own_call(call: ast.Call) -> bool:
    """A call of the learner's (``self.block(x)``, ``layer(x)``), not of torch's."""
    root = call.func
    while isinstance(root, ast.Attribute):
        root = root.value
    return isinstance(root, ast.Name) and root.id not in ("torch", "F", "nn", "math")


def _wrap(tree: ast.AST, node: ast.AST, layer: str) -> None:
    call = ast.Call(ast.Attribute(ast.Name("self"), layer), [node], [])
    _replace(tree, node, call)


def _keep(tree: ast.AST, node: ast.BinOp, side: str) -> None:
    _replace(tree, node, getattr(node, side))


def _side_edits(tree: ast.Module) -> Iterator[Edit]:
    """``a op b`` with one side left out: the scaling, the residual, the extra term."""
    for i, node in enumerate(ast.walk(tree)):
        if isinstance(node, ast.BinOp):
            for side in ("left", "right"):
                yield Edit(f"L{node.lineno} {type(node.op).__name__} -> {side}",
                           f"only the {side} side of `{SYMBOL.get(type(node.op), '?')}`",
                           _at(i, lambda t, n, side=side: _keep(t, n, side)))  # fmt: skip


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
    that define (a `def`, a class body); what is never used put to use first, then the latest
    line first: a slip near the output is found before the many edits of a constructor."""
    defining = {n.lineno for n in ast.walk(own.tree) if isinstance(n, ast.stmt)
                and not _in_function(n, own.tree)}  # fmt: skip
    kept = [e for e in candidate_edits(own.tree)
            if lines is None or _line(e) in lines or _line(e) in defining]  # fmt: skip
    unused = {e.tag for e in _unused_edits(own.tree)}  # few, and likely: first
    return sorted(kept, key=lambda e: (e.tag not in unused, -_line(e)))


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

    def line_message(self, fix_shown: bool, ask: str = " (check(..., fix=True) shows it)") -> str:
        """The hint: the line (rung 2; ``ask``: how to see the edit), or the line and the edit
        (rung 3)."""
        if fix_shown:
            return f"{self.where}: {self.change}, every case passes."
        return f"{self.where}: one change on this line makes every case pass{ask}."


def search(
    own: Own,
    passes: Callable[[str], bool],
    budget_s: float = BUDGET_S,
    lines: set[int] | None = None,
) -> Found | None:
    """The first edit of ``own`` (:func:`ordered`, ``lines``: those the failing case ran) whose
    code passes: ``passes(source)``, the edited definition's source, runs every case at two
    seeds (:func:`runner` builds such a function for the process it is in; the grader runs the
    source in the learner's kernel). None when no edit passes within ``budget_s`` seconds."""
    if threading.current_thread() is not threading.main_thread():
        return None  # no alarm there to stop an edit that loops forever
    deadline = time.perf_counter() + budget_s
    seen: set[str] = set()
    for edit in ordered(own, lines):
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
