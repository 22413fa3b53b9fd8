"""The edit operators: every small edit of a reference's syntax tree, each with its words for a
learner (an operator swapped, a comparison flipped, a number off by one, a call or a keyword or a
statement left out, a sibling call or layer, two arguments swapped, -inf for 0 ...).

    edits(tree)                -> [Edit]: one per site of a parsed reference (annotations
                                  stripped: strip_annotations), each tag unique
    mutant_source(tree, edit)  -> the source of the reference with that one edit

tests/checks/mutation.py makes its mutants with the same :func:`edits`; search.py looks for the
edit that reproduces a learner's outputs.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

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

        yield from _value_edits(node, parent, where, edit)
        if isinstance(node, ast.Call):
            yield from _call_edits(node, where, edit)
        yield from _layer_edits(node, parent, layers, where, edit)
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


def _value_edits(node: ast.AST, parent: dict, where: str, edit) -> Iterator[Edit]:
    """The edits of an operator, a comparison, a constant, a unary operator or an infinity."""
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
    elif isinstance(node, ast.Constant) and type(node.value) in (bool, int, float):
        yield from _constant_edits(node, parent, where, edit)
    elif isinstance(node, ast.UnaryOp) and type(node.op) in UNARY:
        yield edit(
            f"{type(node.op).__name__} removed",
            f"{UNARY[type(node.op)]} left out {where}",
            lambda t, n: _replace(t, n, n.operand),
        )
    elif _is_infinite(node):
        yield edit("inf -> 0", f"0 instead of {ast.unparse(node)} {where}",
                   lambda t, n: _replace(t, n, ast.Constant(0.0)))  # fmt: skip


def _constant_edits(node: ast.Constant, parent: dict, where: str, edit) -> Iterator[Edit]:
    """A bool flipped, an int off by one either way, a float made 1.5 times larger (0: 1.0)."""
    if isinstance(node.value, bool):
        yield edit(
            f"{node.value} -> {not node.value}",
            f"{_named(node, parent, not node.value)} instead of "
            f"{_named(node, parent, node.value)} {where}",
            lambda _, n: setattr(n, "value", not n.value),
        )
    elif type(node.value) is int:
        for new in (node.value + 1, node.value - 1):
            yield edit(
                f"{node.value} -> {new}",
                f"{_named(node, parent, new)} instead of {_named(node, parent, node.value)} "
                f"{where}",
                lambda _, n, new=new: setattr(n, "value", new),
            )
    else:
        new = node.value * 1.5 if node.value else 1.0  # for the mutation tool's coverage
        yield edit(f"{node.value!r} -> {new!r}", f"{new!r} instead of {node.value!r} {where}",
                   lambda _, n, new=new: setattr(n, "value", new))  # fmt: skip


def _layer_edits(node: ast.AST, parent: dict, layers: dict, where: str, edit) -> Iterator[Edit]:
    """``self.q_proj`` used where ``forward`` reads a sibling layer (the same constructor)."""
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


def _at(i: int, fn: Callable[[ast.AST, ast.AST], None]) -> Callable[[ast.AST], None]:
    """fn(root, node) on the node that is the i-th of a copy's walk, as it is of the original's."""
    return lambda t: fn(t, list(ast.walk(t))[i])


def _functions(tree: ast.Module) -> Iterator[ast.FunctionDef]:
    return (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))


def _params(f: ast.FunctionDef) -> list[str]:
    a = f.args
    return [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs if p.arg != "self"]
