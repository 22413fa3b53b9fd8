"""The edits tried on a learner's own code (localise.py): the reference's operators
(operators.py), and the slips a learner makes that no edit of the reference undoes.

    candidate_edits(tree) -> [Edit]: what is built or given and never used, put to use; the
                             reference's operators; a side of an operator left out; names read in
                             another's place; torch's siblings (:data:`RENAMES`); a tensor made
                             without its input's device or dtype; an in-place step made a copy;
                             a term moved into or out of the call beside it; two results swapped
    likely(tree)          -> the tags of the edits tried first (few, and often the fix)
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from typing import Any

from .operators import SYMBOL, Edit, _replace, edits

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
    yield from _factory_edits(tree)
    yield from _copy_edits(tree)
    yield from _term_edits(tree)
    yield from _local_edits(tree)
    yield from _dim_edits(tree)
    yield from _state_edits(tree)


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


# --------------------------------------------------------------------------- slips of one kind


#: torch's functions that make a tensor: with no device=, on the CPU; with no dtype=, float32
FACTORIES = {"zeros", "ones", "full", "empty", "arange", "tensor", "eye", "linspace", "rand",
             "randn", "randint", "as_tensor"}  # fmt: skip
#: the calls a learner adds that change nothing but a tensor's state: tried left out first
STATE_CALLS = {"detach", "float", "double", "half", "item", "cpu", "int", "long", "eval", "train",
               "tolist", "numpy", "clone"}  # fmt: skip
#: a state call left out, as operators.py tags it: "L7 call (x - m).detach(...) dropped"
STATE_DROPPED = re.compile(rf"call .*\.({'|'.join(sorted(STATE_CALLS))})\(\.\.\.\) dropped")


def likely(tree: ast.Module) -> set[str]:
    """The tags of the edits tried first: few, and often the fix (what is never used put to use,
    a device or dtype given, an in-place step made a copy, a term moved, a state call left out)."""
    kinds = (_unused_edits, _factory_edits, _copy_edits, _term_edits, _dim_edits, _state_edits)
    tags = {e.tag for kind in kinds for e in kind(tree)}
    return tags | {e.tag for e in edits(tree) if STATE_DROPPED.search(e.tag)}


def _functions(tree: ast.Module) -> Iterator[ast.FunctionDef]:
    return (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))


def _params(f: ast.FunctionDef) -> list[str]:
    a = f.args
    return [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs if p.arg != "self"]


def _factory_edits(tree: ast.Module) -> Iterator[Edit]:
    """``torch.zeros(...)`` given the device (``device=x.device``, or the ``device`` argument)
    and the dtype (``dtype=x.dtype``) of an argument of the function: made on the CPU in float32
    otherwise; and an integer tensor made long."""
    nodes = list(ast.walk(tree))
    for f in _functions(tree):
        params = _params(f)
        for node in ast.walk(f):
            func = getattr(node, "func", None)
            if not (isinstance(func, ast.Attribute) and ast.unparse(func.value) == "torch"
                    and func.attr in FACTORIES):  # fmt: skip
                continue
            i, given = nodes.index(node), {k.arg for k in node.keywords}
            for p in params:
                device = "device" if p == "device" else f"{p}.device"
                dtypes = [] if p == "device" else [f"{p}.dtype"]
                if "device" not in given:
                    yield _keywords(i, node.lineno, {"device": device})
                for dtype in dtypes + ["torch.long"] * (p == params[0]):
                    yield _keywords(i, node.lineno, {"dtype": dtype})
                    if "device" not in given and dtype != "torch.long":
                        yield _keywords(i, node.lineno, {"device": device, "dtype": dtype})


def _keywords(i: int, line: int, given: dict[str, str]) -> Edit:
    said = ", ".join(f"{k}={v}" for k, v in given.items())

    def put(t: ast.AST) -> None:
        call = list(ast.walk(t))[i]
        call.keywords = [k for k in call.keywords if k.arg not in given]
        call.keywords += [ast.keyword(k, ast.parse(v, mode="eval").body) for k, v in given.items()]

    return Edit(f"L{line} {said}", f"`{said}` given", put)


def _copy_edits(tree: ast.Module) -> Iterator[Edit]:
    """An in-place step made a copy: ``a -= b`` written ``a = a - b``; ``x.add_(y)`` ``x.add(y)``
    (the caller's tensor is left as it was)."""
    for i, node in enumerate(ast.walk(tree)):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            yield Edit(f"L{node.lineno} made a copy", "a new tensor, not the old one changed",
                       _at(i, _assign_copy))  # fmt: skip
            yield Edit(f"L{node.lineno} a number added", "a Python number accumulated",
                       _at(i, _item))  # fmt: skip
        if isinstance(node, ast.Assign) and _rebinds(node):
            yield Edit(f"L{node.lineno} made in place", "the tensor itself changed",
                       _at(i, _in_place))  # fmt: skip
        attr = getattr(getattr(node, "func", None), "attr", "")
        if attr.endswith("_") and not attr.startswith("_") and isinstance(node, ast.Call):
            yield Edit(f"L{node.lineno} .{attr} out of place", f"`.{attr[:-1]}` for `.{attr}`",
                       lambda t, i=i, new=attr[:-1]: setattr(list(ast.walk(t))[i].func, "attr", new))  # fmt: skip  # noqa: E501


def _rebinds(node: ast.Assign) -> bool:
    """``g = g * factor``: a name bound again to itself combined with a value."""
    target, value = node.targets[0], node.value
    return (len(node.targets) == 1 and isinstance(target, ast.Name) and isinstance(value, ast.BinOp)
            and isinstance(value.left, ast.Name) and value.left.id == target.id)  # fmt: skip


def _in_place(tree: ast.AST, node: ast.Assign) -> None:
    new = ast.AugAssign(node.targets[0], node.value.op, node.value.right, lineno=node.lineno)
    _replace(tree, node, new)


def _call(value: ast.expr, method: str, *args: ast.expr) -> ast.Call:
    return ast.Call(ast.Attribute(value, method, ast.Load()), list(args), [])


def _assign_copy(tree: ast.AST, node: ast.AugAssign) -> None:
    value = ast.BinOp(ast.Name(node.target.id, ast.Load()), node.op, node.value)
    _replace(tree, node, ast.Assign([node.target], value, lineno=node.lineno))


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


#: torch's functions a Python number would take from math (a float, not a 0-dim tensor)
MATH = {"cos", "sin", "exp", "log", "sqrt", "tanh", "floor", "ceil"}


def _state_edits(tree: ast.Module) -> Iterator[Edit]:
    """What a tensor is rather than what it holds: every state call of a line left out
    (``k.detach(), v.detach()``); the result given an argument's dtype and device
    (``.to(logits)``); a registered buffer, parameter or module list where a plain attribute
    stands (and the other way round); ``math.cos`` for ``torch.cos``; ``~mask`` for ``mask``."""
    nodes = list(ast.walk(tree))
    for i, node in enumerate(nodes):
        if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            yield from _line_edits(i, node)
        if isinstance(node, ast.Attribute) and node.attr in MATH:
            if isinstance(node.value, ast.Name) and node.value.id == "torch":
                yield Edit(f"L{node.lineno} math.{node.attr}", f"`math.{node.attr}`",
                           _at(i, lambda _, n: setattr(n.value, "id", "math")))  # fmt: skip
        filling = getattr(getattr(node, "func", None), "attr", "") in ("masked_fill", "where")
        if filling and node.args and isinstance(node.args[0], ast.Name):
            yield Edit(f"L{node.lineno} ~{node.args[0].id}", f"`~{node.args[0].id}`",
                       _at(i, _negate))  # fmt: skip
    for f in _functions(tree):
        params = _params(f)[:3]
        for node in ast.walk(f):
            if isinstance(node, ast.Return) and node.value is not None:
                i = nodes.index(node)
                for p in params:
                    yield Edit(f"L{node.lineno} .to({p})", f"`.to({p})`",
                               _at(i, lambda _, n, p=p: _to(n, p)))  # fmt: skip
    for cls in (n for n in nodes if isinstance(n, ast.ClassDef)):
        for node in ast.walk(cls):
            kind = _registered(node)
            if kind:
                i = nodes.index(node)
                for new in ("buffer", "parameter", "modules"):
                    if new != kind:
                        yield Edit(f"L{node.lineno} a {new}", f"a registered {new}",
                                   _at(i, lambda t, n, new=new: _register(t, n, new)))  # fmt: skip


def _item(_, node: ast.AugAssign) -> None:
    node.value = _call(node.value, "item")


def _line_edits(i: int, stmt: ast.stmt) -> Iterator[Edit]:
    """One slip made at every site of a line: ``k.detach(), v.detach()``; ``[k, cache[0]]`` and
    ``[v, cache[1]]``; ``dim=-1`` twice."""
    inner = list(ast.walk(stmt))
    if sum(map(_state_call, inner)) > 1:
        yield Edit(f"L{stmt.lineno} every state call dropped", "no state call",
                   _at(i, _drop_states))  # fmt: skip
    if sum(isinstance(n, ast.List) and len(n.elts) == 2 for n in inner) > 1:
        yield Edit(f"L{stmt.lineno} every pair swapped", "each pair in the other order",
                   _at(i, _swap_pairs))  # fmt: skip
    numbers = [ast.unparse(n) for n in inner if _integer(n)]
    for number in sorted({n for n in numbers if numbers.count(n) > 1}):
        for new in (int(number) - 1, int(number) + 1):
            yield Edit(f"L{stmt.lineno} every {number} -> {new}", f"`{new}` for each `{number}`",
                       _at(i, lambda _, n, o=number, new=new: _renumber(n, o, new)))  # fmt: skip


def _integer(node: ast.AST) -> bool:
    """An int written in the code: ``2``, ``-1``."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def _swap_pairs(_, stmt: ast.stmt) -> None:
    for n in ast.walk(stmt):
        if isinstance(n, ast.List) and len(n.elts) == 2:
            n.elts.reverse()


def _renumber(stmt: ast.stmt, old: str, new: int) -> None:
    for n in [n for n in ast.walk(stmt) if _integer(n) and ast.unparse(n) == old]:
        _replace(
            stmt, n, ast.Constant(new) if new >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-new))
        )


def _negate(_, call: ast.Call) -> None:
    call.args[0] = ast.UnaryOp(ast.Invert(), call.args[0])


def _to(ret: ast.Return, name: str) -> None:
    ret.value = _call(ret.value, "to", ast.Name(name, ast.Load()))


def _state_call(node: ast.AST) -> bool:
    func = getattr(node, "func", None)
    return isinstance(func, ast.Attribute) and func.attr in STATE_CALLS and not node.args


def _drop_states(tree: ast.AST, stmt: ast.stmt) -> None:
    for call in [c for c in ast.walk(stmt) if _state_call(c)]:
        _replace(stmt, call, call.func.value)


def _registered(node: ast.AST) -> str:
    """How ``self.name = value`` (or ``self.register_buffer("name", value)``) keeps its value:
    "buffer", "parameter", "modules" (a list) or "attribute"; "" for any other statement."""
    if isinstance(node, ast.Expr) and getattr(node.value, "func", None) is not None:
        call = node.value
        named = len(call.args) == 2 and isinstance(call.args[0], ast.Constant)
        return "buffer" if getattr(call.func, "attr", "") == "register_buffer" and named else ""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
        return ""
    target, value = node.targets[0], node.value
    if not (isinstance(target, ast.Attribute) and ast.unparse(target.value) == "self"):
        return ""
    if isinstance(value, (ast.List, ast.ListComp)):
        return "modules"
    name = ast.unparse(getattr(value, "func", value))
    if name in ("nn.Parameter", "torch.nn.Parameter"):
        return "parameter"
    return "" if isinstance(value, ast.Call) and name[:1].isupper() else "attribute"


def _register(tree: ast.AST, node: ast.stmt, new: str) -> None:
    """``node`` rewritten to keep its value as ``new``."""
    if isinstance(node, ast.Expr):  # register_buffer("name", value)
        name, value = node.value.args[0].value, node.value.args[1]
    else:
        name, value = node.targets[0].attr, node.value
        if _registered(node) == "parameter" and value.args:
            value = value.args[0]
    self = ast.Name("self", ast.Load())
    if new == "buffer":
        call = _call(self, "register_buffer", ast.Constant(name), value)
        stmt = ast.Expr(call, lineno=node.lineno)
    else:
        wrap = "Parameter" if new == "parameter" else "ModuleList"
        made = ast.Call(ast.Attribute(ast.Name("nn", ast.Load()), wrap, ast.Load()), [value], [])
        stmt = ast.Assign([ast.Attribute(self, name, ast.Store())], made, lineno=node.lineno)
    _replace(tree, node, stmt)
