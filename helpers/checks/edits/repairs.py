"""The edits tried on a learner's own code (localise.py): the reference's operators
(operators.py), and the slips a learner makes that no edit of the reference undoes.

    candidate_edits(tree) -> [Edit]: what is built or given and never used, put to use; the
                             reference's operators; a side of an operator left out; names read in
                             another's place; torch's siblings (:data:`RENAMES`); a term moved
                             into or out of the call beside it; two items of a pair swapped; a
                             comparison turned; a local never read put to use; ``dim`` for a fixed
                             axis (tensors.py: what a tensor is, its device, dtype, copies...)
    likely(tree)          -> the tags of the edits tried first (few, and often the fix)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any

from .operators import SYMBOL, Edit, _at, _functions, _params, _replace, edits

#: a learner's slip the reference's operators do not undo: a method or function of torch used in
#: its sibling's place (the learner-side direction of operators.SIBLING, and more)
RENAMES = {
    "view": ("reshape",), "repeat": ("repeat_interleave",), "repeat_interleave": ("repeat",),
    "max": ("amax",), "min": ("amin",), "amax": ("max",), "T": ("mT",), "mT": ("T",),
    "softmax": ("log_softmax",), "log_softmax": ("softmax",), "var": ("std",), "std": ("var",),
    "tril": ("triu",), "triu": ("tril",), "all": ("any",), "any": ("all",),
    "argmax": ("argmin",), "argmin": ("argmax",), "float": ("double",),
    "train": ("eval",), "eval": ("train",), "sqrt": ("rsqrt",), "rsqrt": ("sqrt",),
    "zeros": ("ones",), "ones": ("zeros",), "gather": ("scatter",), "scatter": ("gather",),
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
    yield from _term_edits(tree)
    yield from _local_edits(tree)
    yield from _dim_edits(tree)


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


# --------------------------------------------------------------------------- slips of one kind


def likely(tree: ast.Module) -> set[str]:
    """The tags of this module's edits tried first: few, and often the fix (what is never used
    put to use, a term moved, the dim argument); localise.ordered adds tensors.py's."""
    kinds = (_unused_edits, _term_edits, _dim_edits)
    return {e.tag for kind in kinds for e in kind(tree)}


def _term_edits(tree: ast.Module) -> Iterator[Edit]:
    """A term moved into the call beside it (``sqrt(v) + eps`` -> ``sqrt(v + eps)``) or out of
    it; two items of a pair swapped (``return z, weights``, ``size=(h, w)``); a comparison turned
    round (``j >= i`` for ``j <= i``)."""
    for i, node in enumerate(ast.walk(tree)):
        if isinstance(node, ast.BinOp) and _one_arg(node.left):
            yield Edit(f"L{node.lineno} into {ast.unparse(node.left.func)[:30]}",
                       "the term inside the call", _at(i, _into))  # fmt: skip
        if _one_arg(node) and isinstance(node.args[0], ast.BinOp):
            yield Edit(f"L{node.lineno} out of {ast.unparse(node.func)[:30]}",
                       "the term outside the call", _at(i, _out_of))  # fmt: skip
        if isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) == 2:
            yield Edit(f"L{node.lineno} pair swapped back #{i}", "the two in the other order",
                       _at(i, lambda _, n: n.elts.reverse()))  # fmt: skip
        if isinstance(node, ast.Compare) and type(node.ops[0]) in TURNED:
            yield Edit(f"L{node.lineno} comparison turned #{i}", "the comparison turned round",
                       _at(i, _turn))  # fmt: skip


TURNED = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}


def _turn(_, node: ast.Compare) -> None:
    node.ops[0] = TURNED[type(node.ops[0])]()


def _one_arg(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords


def _into(tree: ast.AST, node: ast.BinOp) -> None:
    call = node.left
    call.args = [ast.BinOp(call.args[0], node.op, node.right)]
    _replace(tree, node, call)


def _out_of(tree: ast.AST, call: ast.Call) -> None:
    inner = call.args[0]
    call.args = [inner.left]
    _replace(tree, call, ast.BinOp(call, inner.op, inner.right))


def _local_edits(tree: ast.Module) -> Iterator[Edit]:
    """A local computed and never read, combined with a value read after it (``grad_y - s``)."""
    nodes = list(ast.walk(tree))
    for f in _functions(tree):
        names = [n for n in ast.walk(f) if isinstance(n, ast.Name)]
        read = {n.id for n in names if isinstance(n.ctx, ast.Load)}
        made = {a.targets[0].id: a.lineno for a in ast.walk(f) if isinstance(a, ast.Assign)
                and len(a.targets) == 1 and isinstance(a.targets[0], ast.Name)}  # fmt: skip
        for name, line in made.items():
            if name in read or name == "_":
                continue
            for node in names:
                if isinstance(node.ctx, ast.Load) and node.lineno > line:
                    i = nodes.index(node)
                    for op in (ast.Sub, ast.Add, ast.Mult, ast.Div):
                        yield Edit(f"L{node.lineno} {node.id} {op.__name__} {name} used",
                                   f"`{name}` used",
                                   _at(i, lambda t, n, op=op, name=name: _replace(
                                       t, n, ast.BinOp(n, op(), ast.Name(name, ast.Load())))))  # fmt: skip  # noqa: E501


#: a reduction over the whole tensor, and the one along a dim that keeps it (max gives values)
REDUCE = {"max": "amax", "min": "amin", "amax": "amax", "amin": "amin", "sum": "sum",
          "mean": "mean"}  # fmt: skip


def _dim_edits(tree: ast.Module) -> Iterator[Edit]:
    """The function's ``dim`` argument where a fixed axis stands (``-1`` for ``dim``), or given
    to a reduction over the whole tensor (``x.max()`` -> ``x.amax(dim=dim, keepdim=True)``)."""
    nodes = list(ast.walk(tree))
    for f in _functions(tree):
        for dim in (p for p in _params(f) if p == "dim" or p.endswith("_dim")):
            for node in ast.walk(f):
                i = nodes.index(node)
                value = ast.unparse(node) if isinstance(node, (ast.Constant, ast.UnaryOp)) else ""
                if value in ("-2", "-1", "0", "1", "2"):
                    yield Edit(f"L{node.lineno} {value} -> {dim}", f"`{dim}` used",
                               _at(i, lambda t, n, dim=dim: _read(t, n, dim)))  # fmt: skip
                if _whole(node):
                    new = REDUCE[node.func.attr]
                    yield Edit(f"L{node.lineno} .{node.func.attr}() along {dim}",
                               f"`.{new}(dim={dim}, keepdim=True)`",
                               _at(i, lambda _, n, d=dim, new=new: _along(n, d, new)))  # fmt: skip


def _whole(node: ast.AST) -> bool:
    """A reduction over the whole tensor: ``x.max()``."""
    method = getattr(node, "func", None)
    return (isinstance(node, ast.Call) and isinstance(method, ast.Attribute)
            and method.attr in REDUCE and not node.args and not node.keywords)  # fmt: skip


def _along(call: ast.Call, dim: str, new: str) -> None:
    call.func.attr = new
    call.keywords = [ast.keyword("dim", ast.Name(dim, ast.Load())),
                     ast.keyword("keepdim", ast.Constant(True))]  # fmt: skip
