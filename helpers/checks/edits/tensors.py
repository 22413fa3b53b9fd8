"""What a tensor is, rather than what it holds: the slips of a learner's code (localise.py)
that leave its values right on the CPU and wrong elsewhere, or for the caller.

    tensor_edits(tree) -> [Edit]: a tensor made without its input's device or dtype; an in-place
                          step made a copy (and a copy made in place); every state call of a line
                          left out (``.detach()``), or one slip at each of a line's sites; the
                          result cast to an argument (``.to(x)``); a registered buffer, parameter
                          or module list where a plain attribute stands; ``math.cos`` for
                          ``torch.cos``; ``~mask`` for ``mask``
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from .operators import Edit, _at, _functions, _params, _replace

#: torch's functions that make a tensor: with no device=, on the CPU; with no dtype=, float32
FACTORIES = {"zeros", "ones", "full", "empty", "arange", "tensor", "eye", "linspace", "rand",
             "randn", "randint", "as_tensor"}  # fmt: skip
#: the calls a learner adds that change nothing but a tensor's state: tried left out first
STATE_CALLS = {"detach", "float", "double", "half", "item", "cpu", "int", "long", "eval", "train",
               "tolist", "numpy", "clone"}  # fmt: skip
#: a state call left out, as operators.py tags it: "L7 call (x - m).detach(...) dropped"
STATE_DROPPED = re.compile(rf"call .*\.({'|'.join(sorted(STATE_CALLS))})\(\.\.\.\) dropped")


def tensor_edits(tree: ast.Module) -> Iterator[Edit]:
    yield from _factory_edits(tree)
    yield from _copy_edits(tree)
    yield from _state_edits(tree)


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
