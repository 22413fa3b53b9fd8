"""The reference as an error model: a wrong answer named by the small edit of the reference that
reproduces it on every case of the check (Singh, Gulwani and Solar-Lezama, PLDI 2013).

    edits(source)      -> [Edit]: one edit per site of the reference's syntax tree (an operator
                          swapped, a comparison flipped, a number off by one, a call or a
                          keyword or a statement left out, a sibling call or layer, two
                          arguments swapped, -inf for 0 ...), each with its words for a learner
    explain(ex, pairs) -> (message, code) | None: the edits that do what the learner's code
                          does on every probe, named; None when none does (the check then says
                          what it knows)

The references are those the course ships: a class or function of ``helpers/blocks``, else the
exercise cell of the solved notebook. The mutants are built once per exercise and process, and run
in the judge's process on the CPU (they are the course's code, not the learner's).
tests/checks/mutation.py makes its mutants with the same :func:`edits`.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import dataclasses
import hashlib
import json
import linecache
import math
import re
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils._pytree import tree_leaves

from .. import blocks
from ..notebook_files import ROOT, solution_paths
from .run.calling import Probe
from .run.parts import PARTS_KEY
from .run.runner import Outcome, Task, _run_on

if TYPE_CHECKING:  # the framework is a floor above: an exercise comes in, none is made here
    from .framework import Exercise

#: the whole search stops after this many seconds (check() stays under 1 s)
BUDGET_S = 1.0
#: one mutant on one probe: longer is a loop that a flipped comparison made endless
MUTANT_S = 0.2
SWAP = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult,
    ast.Pow: ast.Mult, ast.MatMult: ast.Mult, ast.FloorDiv: ast.Div, ast.Mod: ast.FloorDiv,
    ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd,
}  # fmt: skip
#: more operators a slip puts in an operator's place: `//` for `/` (integer division)
ALSO = {ast.Div: (ast.FloorDiv,)}
FLIP = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In,
}  # fmt: skip
SIBLING = {
    "tril": "triu", "triu": "tril", "sin": "cos", "cos": "sin", "amax": "amin", "max": "min",
    "min": "max", "mean": "sum", "sum": "mean", "relu": "gelu", "gelu": "relu", "exp": "log",
    "softmax": "log_softmax", "maximum": "minimum", "cumsum": "cumprod",
}  # fmt: skip
SYMBOL = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**", ast.MatMult: "@",
    ast.FloorDiv: "//", ast.Mod: "%", ast.BitAnd: "&", ast.BitOr: "|", ast.Lt: "<",
    ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.Is: "is",
    ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
}  # fmt: skip
UNARY = {ast.USub: "a minus sign", ast.Invert: "`~` (a mask's negation)", ast.Not: "`not`"}
NAMESPACES = ("torch", "F", "math", "nn", "self")


@dataclass(frozen=True)
class Edit:
    tag: str  # for the maintainer: "L12 Div -> Mult"
    words: str  # for the learner: "`*` instead of `/` in the step that sets `scores`"
    mutate: Callable[[ast.AST], None]  # applies the edit to a copy of the tree, in place

    @property
    def code(self) -> str:
        """The mistake's code in a gradebook: the kind of edit and where."""
        return "edit_" + re.sub(r"[^a-z0-9]+", "_", self.tag.lower()).strip("_")


# --------------------------------------------------------------------------- the edits


def edits(tree: ast.AST) -> Iterator[Edit]:
    """One :class:`Edit` per site of ``tree`` (a parsed reference, annotations stripped); each
    tag is unique (a second `1 -> 2` on one line is "L5 1 -> 2 #2")."""
    seen: dict[str, int] = {}
    for edit in _edits(tree):
        seen[edit.tag] = seen.get(edit.tag, 0) + 1
        if seen[edit.tag] > 1:
            edit = dataclasses.replace(edit, tag=f"{edit.tag} #{seen[edit.tag]}")
        yield edit


def _edits(tree: ast.AST) -> Iterator[Edit]:
    nodes = list(ast.walk(tree))
    parent = {id(c): p for p in nodes for c in ast.iter_child_nodes(p)}
    layers = _layer_families(tree)
    for i, node in enumerate(nodes):
        line, where = getattr(node, "lineno", 0), _step(node, parent)

        def at(fn, i=i):  # fn(root, node): the same site found again in a copy of the tree
            return lambda t: fn(t, list(ast.walk(t))[i])

        def edit(tag, words, fn, line=line, at=at):
            return Edit(f"L{line} {tag}", words, at(fn))

        if isinstance(node, ast.BinOp) and type(node.op) in SWAP:
            old = type(node.op)
            for new in (SWAP[old], *ALSO.get(old, ())):
                yield edit(
                    f"{old.__name__} -> {new.__name__}",
                    f"`{SYMBOL[new]}` instead of `{SYMBOL[old]}` {where}",
                    lambda _, n, new=new: setattr(n, "op", new()),
                )
            if old in (ast.Sub, ast.Div, ast.MatMult, ast.Pow, ast.FloorDiv, ast.Mod):
                yield edit(
                    f"{old.__name__} operands swapped",
                    f"the two sides of `{SYMBOL[old]}` swapped {where}",
                    _swap_operands,
                )
        elif isinstance(node, ast.Compare) and type(node.ops[0]) in FLIP:
            old, new = type(node.ops[0]), FLIP[type(node.ops[0])]
            yield edit(
                f"{old.__name__} -> {new.__name__}",
                f"`{SYMBOL[new]}` instead of `{SYMBOL[old]}` {where}",
                lambda _, n, new=new: n.ops.__setitem__(0, new()),
            )
        elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
            yield edit(
                f"{node.value} -> {not node.value}",
                f"{_named(node, parent, not node.value)} instead of "
                f"{_named(node, parent, node.value)} {where}",
                lambda _, n: setattr(n, "value", not n.value),
            )
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            for new in (node.value + 1, node.value - 1):
                yield edit(
                    f"{node.value} -> {new}",
                    f"{_named(node, parent, new)} instead of {_named(node, parent, node.value)} "
                    f"{where}",
                    lambda _, n, new=new: setattr(n, "value", new),
                )
        elif isinstance(node, ast.Constant) and type(node.value) is float:
            new = node.value * 1.5 if node.value else 1.0  # for the mutation tool's coverage
            yield edit(f"{node.value!r} -> {new!r}", f"{new!r} instead of {node.value!r} {where}",
                       lambda _, n, new=new: setattr(n, "value", new))  # fmt: skip
        elif isinstance(node, ast.UnaryOp) and type(node.op) in UNARY:
            yield edit(
                f"{type(node.op).__name__} removed",
                f"{UNARY[type(node.op)]} left out {where}",
                lambda t, n: _replace(t, n, n.operand),
            )
        elif _is_infinite(node):
            yield edit("inf -> 0", f"0 instead of {ast.unparse(node)} {where}",
                       lambda t, n: _replace(t, n, ast.Constant(0.0)))  # fmt: skip
        if isinstance(node, ast.Call):
            yield from _call_edits(node, where, edit)
        if (
            isinstance(node, ast.Attribute)
            and node.attr in layers
            and ast.unparse(node.value) == "self"
            and _in_forward(node, parent)
        ):
            for other in layers[node.attr]:
                yield edit(
                    f"self.{node.attr} -> self.{other}",
                    f"`self.{other}` instead of `self.{node.attr}` {where}",
                    lambda _, n, other=other: setattr(n, "attr", other),
                )
        if isinstance(node, ast.ClassDef):
            pairs = {tuple(sorted((a, b))) for a, family in layers.items() for b in family}
            for a, b in sorted(pairs):
                yield Edit(
                    f"L{line} self.{a} <-> self.{b}",
                    f"`self.{a}` and `self.{b}` swapped in `forward`",
                    at(lambda _, n, a=a, b=b: _swap_layers(n, a, b)),
                )
        if isinstance(node, (ast.FunctionDef, ast.For, ast.If, ast.With, ast.While)):
            for j, stmt in enumerate(node.body):
                if _deletable(stmt):
                    yield Edit(
                        f"L{stmt.lineno} statement deleted",
                        f"a step left out: {_summary(stmt)}",
                        at(lambda _, n, j=j: _delete(n, j)),
                    )


def _call_edits(node: ast.Call, where: str, edit) -> Iterator[Edit]:
    name = ast.unparse(node.func)[:40]
    if _first(node) is not node:
        yield edit(f"call {name}(...) dropped",
                   f"`{name}(...)` left out {where} (what it is given is used as it is)",
                   lambda t, n: _replace(t, n, _first(n)))  # fmt: skip
    for j, kw in enumerate(node.keywords):
        if kw.arg:
            yield edit(f"keyword {kw.arg}= dropped",
                       f"`{name}(...)` without its `{kw.arg}=` argument {where}",
                       lambda _, n, j=j: n.keywords.pop(j))  # fmt: skip
    short = getattr(node.func, "attr", getattr(node.func, "id", None))
    if short in SIBLING:
        yield edit(f"{short} -> {SIBLING[short]}",
                   f"`{SIBLING[short]}` instead of `{short}` {where}",
                   lambda _, n: _rename(n, SIBLING))  # fmt: skip
    for j in range(len(node.args) - 1):  # two neighbouring arguments swapped
        a, b = node.args[j : j + 2]
        if (
            not isinstance(a, ast.Starred)
            and not isinstance(b, ast.Starred)
            and (ast.dump(a) != ast.dump(b))
        ):
            yield edit(f"{name} arguments {j + 1},{j + 2} swapped",
                       f"arguments {j + 1} and {j + 2} of `{name}(...)` swapped {where}",
                       lambda _, n, j=j: _swap(n.args, j))  # fmt: skip


def _swap_layers(cls: ast.ClassDef, a: str, b: str) -> None:
    """Every use of self.a outside __init__ made self.b, and the other way round."""
    parent = {id(c): p for p in ast.walk(cls) for c in ast.iter_child_nodes(p)}
    for node in ast.walk(cls):
        if isinstance(node, ast.Attribute) and node.attr in (a, b) and _in_forward(node, parent):
            if ast.unparse(node.value) == "self":
                node.attr = b if node.attr == a else a


def _swap(items: list, j: int) -> None:
    items[j], items[j + 1] = items[j + 1], items[j]


def _layer_families(tree: ast.AST) -> dict[str, list[str]]:
    """self.<name> -> the other attributes built by the same constructor in ``__init__``
    (q_proj: [k_proj, v_proj, out_proj]): a layer used in its sibling's place."""
    made: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            for stmt in ast.walk(node):
                if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
                    for t in stmt.targets:
                        if isinstance(t, ast.Attribute) and ast.unparse(t.value) == "self":
                            made[t.attr] = ast.unparse(stmt.value.func)
    return {a: [b for b in made if b != a and made[b] == f] for a, f in made.items()
            if sum(f == g for g in made.values()) > 1}  # fmt: skip


def _in_forward(node: ast.AST, parent: dict) -> bool:
    while id(node) in parent:
        node = parent[id(node)]
        if isinstance(node, ast.FunctionDef):
            return node.name != "__init__"
    return False


def _is_infinite(node: ast.AST) -> bool:
    """float("-inf"), -math.inf, -torch.inf, torch.finfo(...).min: an initial value or a fill."""
    text = ast.unparse(node)
    return text in ('float("-inf")', "float('-inf')", "-math.inf", "-torch.inf") or (
        isinstance(node, ast.Attribute) and node.attr == "min" and "finfo" in text
    )


def _step(node: ast.AST, parent: dict) -> str:
    """Where ``node`` is, in words: "in the step that sets `scores`"."""
    stmt = node
    while id(stmt) in parent and not isinstance(stmt, ast.stmt):
        stmt = parent[id(stmt)]
    if isinstance(stmt, ast.Assign):
        return f"in the step that sets `{ast.unparse(stmt.targets[0])[:30]}`"
    if isinstance(stmt, ast.AugAssign):
        return f"in the step that updates `{ast.unparse(stmt.target)[:30]}`"
    if isinstance(stmt, ast.Return):
        function = stmt
        while id(function) in parent and not isinstance(function, ast.FunctionDef):
            function = parent[id(function)]
        name = getattr(function, "name", "")
        return f"in what `{name}` returns" if name and name != "forward" else "in what is returned"
    if isinstance(stmt, (ast.If, ast.While)) and node is not stmt:
        return "in a condition"
    if isinstance(stmt, ast.For) and node is not stmt:
        return "in a loop's range"
    return ""


def _swap_operands(_, n: ast.BinOp) -> None:
    """``a op b`` -> ``b op a`` (both sides read before either is written)."""
    n.left, n.right = n.right, n.left


def _named(node: ast.Constant, parent: dict, value: Any) -> str:
    """`dim=-2` for a constant given as a keyword, `transpose(1, 3)` for one given to a short
    call, `-2` else."""
    up = parent.get(id(node))
    if isinstance(up, ast.UnaryOp) and isinstance(up.op, ast.USub):  # -1: one constant
        node, up, value = up, parent.get(id(up)), -value
    if isinstance(up, ast.keyword) and up.arg:
        return f"`{up.arg}={value!r}`"
    if isinstance(up, ast.Call) and node in up.args:
        args = [repr(value) if a is node else ast.unparse(a) for a in up.args]
        short = getattr(up.func, "attr", getattr(up.func, "id", ""))
        text = f"{short}({', '.join(args)})"
        if short and len(text) <= 40:
            return f"`{text}`"
    return f"`{value!r}`"


def _summary(stmt: ast.stmt) -> str:
    calls = [ast.unparse(c.func) for c in ast.walk(stmt) if isinstance(c, ast.Call)]
    call = f", which calls `{calls[0]}`" if calls else ""
    if isinstance(stmt, ast.Assign):
        return f"the one that sets `{ast.unparse(stmt.targets[0])[:30]}`{call}"
    if isinstance(stmt, ast.AugAssign):
        return f"the one that updates `{ast.unparse(stmt.target)[:30]}`{call}"
    if isinstance(stmt, ast.Expr) and calls:
        return f"the call to `{calls[0]}`"
    return f"an `{type(stmt).__name__.lower()}` statement{call}"


def _first(call: ast.Call) -> ast.expr:
    """A call replaced by what it transforms: x.f(...) -> x, f(a, ...) and self.f(a) -> a."""
    root = call.func
    while isinstance(root, ast.Attribute):
        root = root.value
    namespace = isinstance(root, ast.Name) and root.id in NAMESPACES
    if isinstance(call.func, ast.Attribute) and not namespace:
        return call.func.value
    return call.args[0] if call.args else call


def strip_annotations(tree: ast.AST) -> ast.AST:
    """Type hints are not behaviour: no edit is made there."""
    for node in ast.walk(tree):
        if isinstance(node, ast.arg):
            node.annotation = None
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
    return tree


def _rename(call: ast.Call, table: dict) -> None:
    if isinstance(call.func, ast.Attribute):
        call.func.attr = table[call.func.attr]
    else:
        call.func.id = table[call.func.id]


def _deletable(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return False  # docstring
    if isinstance(stmt, ast.Return):
        return False  # a function without its return is a crash, not a mistake to name
    text = ast.unparse(stmt)
    return "super().__init__" not in text and not text.startswith("raise ")


def _delete(node, j):
    del node.body[j]
    if not node.body:
        node.body.append(ast.Pass())


def _replace(root, old, new):
    for parent in ast.walk(root):
        for name, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, name, new)
            elif isinstance(value, list):
                for k, item in enumerate(value):
                    if item is old:
                        value[k] = new


def mutant_source(tree: ast.AST, edit: Edit) -> str:
    mutant = copy.deepcopy(tree)
    edit.mutate(mutant)
    return ast.unparse(ast.fix_missing_locations(mutant))


def build(source: str, ns: dict, name: str, tag: str):
    """exec the source in a copy of ns; inspect.getsource works on the result (linecache)."""
    filename = f"<mutant {tag}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    ns = dict(ns)
    exec(compile(source, filename, "exec"), ns)
    return ns[name]


# --------------------------------------------------------------------------- the references


def reference_name(ex: Exercise) -> str:
    return ex.grade_target or ex.id.split(".", 1)[1]


def reference_source(ex: Exercise) -> tuple[str, dict] | None:
    """(source of ``ex``'s reference definition, the namespace it runs in): from helpers/blocks,
    else the exercise cell of the solved notebook (after the notebook's earlier exercise cells,
    which it may call); None for a trained model, a question's answer, or where the solved
    notebook is not there."""
    if ex.kind in ("trained", "question"):
        return None
    name = reference_name(ex)
    found = getattr(blocks, name, None)
    if found is not None:
        module = __import__(found.__module__, fromlist=["_"])
        text = open(module.__file__).read()
        tree = ast.parse(text)
        node = next(n for n in tree.body if getattr(n, "name", None) == name)
        return ast.get_source_segment(text, node), dict(vars(module))
    notebook = [p for p in solution_paths(ROOT) if p.name.startswith(f"{ex.notebook}_")]
    if not notebook:
        return None
    ns = {"torch": torch, "nn": nn, "F": F, "math": math}
    for cell in json.loads(notebook[0].read_text())["cells"]:
        source = "".join(cell["source"])
        if cell["metadata"].get("course", {}).get("exercise") == ex.id:
            return source, ns
        if cell["metadata"].get("course", {}).get("exercise"):
            with contextlib.suppress(Exception):
                exec(source, ns)
    return None


_REFERENCES: dict[str, Any] = {}
_MUTANTS: dict[str, list[tuple[Edit, Any]]] = {}


def reference(ex: Exercise) -> Any:
    """The course's reference of ``ex``, built once (None where it ships none)."""
    if ex.id not in _REFERENCES:
        found = reference_source(ex)
        _REFERENCES[ex.id] = found and build(*found, reference_name(ex), "reference")
    return _REFERENCES[ex.id]


def has_reference(ex: Exercise) -> bool:
    return reference(ex) is not None


def mutants(ex: Exercise) -> tuple[Any, list[tuple[Edit, Any]]]:
    """(the reference object, [(edit, the mutant object)]) for an exercise, built once."""
    if ex.id not in _MUTANTS:
        _MUTANTS[ex.id] = _mutants(ex) if reference(ex) is not None else []
    return reference(ex), _MUTANTS[ex.id]


def _mutants(ex: Exercise) -> list[tuple[Edit, Any]]:
    source, ns = reference_source(ex)
    name = reference_name(ex)
    tree = strip_annotations(ast.parse(source))
    built = []
    for edit in edits(tree):
        with contextlib.suppress(Exception):  # an edit that does not even define the object
            built.append((edit, build(mutant_source(tree, edit), ns, name, edit.tag)))
    return built


# --------------------------------------------------------------------------- the search


def distance(a: Any, b: Any) -> float:
    """How far two outcomes' values are: the largest error over their tensors, relative to each
    tensor's scale (0 when equal; inf when their structure, shapes, NaNs or exact parts differ)."""
    la, lb = tree_leaves(a), tree_leaves(b)
    if len(la) != len(lb):
        return math.inf
    worst = 0.0
    for x, y in zip(la, lb):
        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            if x.shape != y.shape:
                return math.inf
            if not (x.is_floating_point() and y.is_floating_point()):
                if not torch.equal(x, y):
                    return math.inf
                continue
            x, y = x.double(), y.double()
            if not torch.equal(torch.isnan(x), torch.isnan(y)):
                return math.inf
            x, y = x.nan_to_num(), y.nan_to_num()
            if not torch.equal(torch.isinf(x), torch.isinf(y)):
                return math.inf
            x, y = x.nan_to_num(posinf=0, neginf=0), y.nan_to_num(posinf=0, neginf=0)
            if x.numel():
                scale = max(y.abs().max().item(), x.abs().max().item(), 1e-12)
                worst = max(worst, (x - y).abs().max().item() / scale)
        elif isinstance(x, float) and isinstance(y, float):
            if not (x == y or math.isclose(x, y, rel_tol=1e-9)):
                worst = max(worst, abs(x - y) / max(abs(x), abs(y), 1e-12))
        elif type(x) is not type(y) or x != y:
            return math.inf
    return worst


#: an edit reproduces the learner's output when it lies this close, relative to the output's scale,
#: and ten times closer than the reference
SAME, CLOSER = 1e-4, 0.1


@contextlib.contextmanager
def time_limit(seconds: float):
    """Raise TimeoutError in the code run within after ``seconds`` (main thread; 0: no limit of
    its own). An outer limit (the mutation tool's around a whole check) keeps running: the inner
    never outlasts it, and it is set again, less the time spent, on the way out."""
    if threading.current_thread() is not threading.main_thread():
        yield  # no alarm there: the reference alone runs so (reproducing() searches in main)
        return

    def expire(*_):
        raise TimeoutError(f"still running after {seconds} s")

    start = time.monotonic()
    outer, _ = signal.getitimer(signal.ITIMER_REAL)
    previous = signal.getsignal(signal.SIGALRM)
    if seconds:
        signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, min(seconds, outer) if outer else seconds)
    try:
        yield
    finally:
        left = outer - (time.monotonic() - start) if outer else 0.0
        signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3) if outer else 0.0)
        signal.signal(signal.SIGALRM, previous)


#: (exercise id, edit tag or "reference", the probe's fingerprint) -> Outcome: a learner who
#: checks again meets the same probes (the same seed), and so does a batch in the grader
_OUTCOMES: dict[tuple, Outcome] = {}


def fingerprint(probe: Probe) -> str:
    """The probe's content as a digest (its tensors by their bytes)."""
    digest = hashlib.sha1()
    for leaf in tree_leaves((probe.name, probe.runner, probe.args, probe.kwargs, probe.init,
                             probe.state, sorted(probe.info.items(), key=str))):  # fmt: skip
        if isinstance(leaf, torch.Tensor):
            digest.update(f"{leaf.dtype}{tuple(leaf.shape)}".encode())
            digest.update(leaf.detach().cpu().contiguous().view(-1).view(torch.uint8).numpy())
        else:
            digest.update(repr(leaf).encode())
    return digest.hexdigest()


def _run(task: Task, probe: Probe, obj: Any, tag: str, key: str) -> Outcome:
    if (task.id, tag, key) not in _OUTCOMES:
        try:
            with time_limit(MUTANT_S):
                outcome = _run_on(task, probe, obj, torch.device("cpu"))
        except TimeoutError:
            outcome = Outcome(error="timeout")
        _OUTCOMES[task.id, tag, key] = outcome
    return _OUTCOMES[task.id, tag, key]


def reference_outcome(ex: Exercise, probe: Probe) -> Outcome | None:
    """The course's reference on ``probe``, on the CPU (None where it has none)."""
    course = reference(ex)
    if course is None:
        return None
    task = Task(ex.id, (), ex.parts, ex.function_parts, ex.traced)
    return _run(task, probe, course, "reference", fingerprint(probe))


def _own(value: Any) -> Any:
    """The learner's module run with the course's parts, where its own parts changed the output
    (run/parts.py): the edit is looked for in the module itself."""
    if isinstance(value, dict) and value.get(PARTS_KEY):
        return value["swaps"]["*"]
    return value


def reproducing(ex: Exercise, pairs: Iterable[tuple[Probe, Outcome]]) -> list[Edit]:
    """The edits of ``ex``'s reference whose outputs equal the learner's on every probe of
    ``pairs`` (the learner's outcomes, the failing one first; read lazily, as long as an edit
    still reproduces them all); [] when the search does not apply, or runs past
    :data:`BUDGET_S`."""
    if threading.current_thread() is not threading.main_thread():
        return []  # no alarm to stop a mutant that loops forever
    course, alive = mutants(ex)
    if course is None:
        return []
    # the course's own code: no built-in switched off (a dispatch mode costs 5x)
    task = Task(ex.id, (), ex.parts, ex.function_parts, ex.traced)
    deadline = time.perf_counter() + BUDGET_S
    valued = False  # an edit that only raises as the learner's code does is not enough
    changed: set[str] = set()
    with torch.random.fork_rng(devices=[]):
        for probe, mine in pairs:
            if mine.missing or (mine.error is None and mine.value is None):
                return []
            key, value = fingerprint(probe), _own(mine.value)
            ref = _run(task, probe, course, "reference", key)
            off = distance(ref.value, value)
            kept = []
            for edit, obj in alive:
                if time.perf_counter() > deadline:
                    return []  # not searched to the end: nothing is claimed
                got = _run(task, probe, obj, edit.tag, key)
                if _alike(got, mine, value, off):
                    kept.append((edit, obj))
                    if not _alike(got, ref, ref.value, math.inf):  # it changes the reference
                        changed.add(edit.tag)
            alive, valued = kept, valued or mine.error is None
            if not alive:
                return []
    # an edit that changes nothing on these cases (transpose(-1, -2)) names no mistake
    return [edit for edit, _ in alive if edit.tag in changed] if valued else []


def _alike(got: Outcome, mine: Outcome, value: Any, off: float) -> bool:
    """The mutant does what the learner's code does on one probe: raises the same exception
    with the same message, or gives outputs within :data:`SAME` and far closer than the
    reference's (``off``: the reference's distance to the learner's ``value``)."""
    if mine.error is not None:
        return got.error is not None and got.error.splitlines()[0] == mine.error.splitlines()[0]
    return got.error is None and distance(got.value, value) <= min(SAME, CLOSER * off)


def explain(ex: Exercise, pairs: Iterable[tuple[Probe, Outcome]]) -> tuple[str, str] | None:
    """(message, mistake code) naming the edit(s) of the reference that reproduce what the
    learner's code does on every probe (its outputs, or the error it raises), or None."""
    found = reproducing(ex, pairs)
    if not found:
        return None
    words = list(dict.fromkeys(e.words.strip() for e in found))
    if len(words) == 1:
        text = f"your code does what the reference does with one change: {words[0]}."
    else:
        listed = "; or ".join(words[:3]) + ("; ..." if len(words) > 3 else "")
        text = f"your code does what the reference does with one of these changes: {listed}."
    return text, found[0].code
