"""What a notebook binds to the names the grader runs, and the code in it nobody can read.

For ``--similarity`` (similarity.py): the definition the grader runs is compared, wherever it
stands; a definition that cannot have scored (a stub), or a name bound otherwise than by its
definition (an import, an assignment, a loop, a write by name into ``globals()``...), is listed
instead, and so is ``exec``, ``eval`` or ``compile`` of text built at run time (:data:`OPAQUE`).
"""

from __future__ import annotations

import ast

#: the key, among the exercise ids, of the code a submission runs that no one can read
OPAQUE = "(code the grader could not read)"
# JSON: {exercise id: "" when the notebook defines it, else how its code is not in the notebook}
BOUND = "(graded names bound)"
RUNS_TEXT = ("exec", "eval", "compile")  # the built-ins that run code given as a string


def _parse(source: str) -> ast.Module | None:
    """A cell's code as a tree (IPython's ``%`` and ``!`` lines set aside); None for whatever the
    parser refuses: a syntax error, a null byte, nesting too deep (RecursionError, or MemoryError
    for ``-`` written 100,000 times)."""
    lines = [ln for ln in source.splitlines() if not ln.lstrip().startswith(("%", "!"))]
    try:
        return ast.parse("\n".join(lines))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _graded_bindings(trees: list[tuple]) -> dict[str, tuple]:
    """{exercise id: (the exercise of the cell it is in, kind, text)} of the last top-level
    statement binding the name the grader runs: ("def", its source) for a def or a class, the
    code graded wherever it was written; ("stub", why) for a definition that cannot have
    scored; ("bound", how) for an import or an assignment, whose code is not in the notebook."""
    from ...checks import EXERCISES
    from ..reading.submissions import target_name

    targets = {target_name(ex): ex_id for ex_id, ex in EXERCISES.items() if _written(ex)}
    found: dict[str, tuple] = {}
    for cell, tree in trees:
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in targets:
                if _cannot_work(node):  # the stub, or as good as it
                    how = f"its definition in the notebook (line {node.lineno}) always raises "
                    how += "or computes nothing: the code that ran is not in it"
                    found[targets[node.name]] = (cell, "stub", how)
                else:
                    found[targets[node.name]] = (cell, "def", ast.unparse(node))
    for cell, tree in trees:  # bound otherwise anywhere: what the grader compares may not run
        for name, how in _module_bindings(tree, set(targets)):
            found[targets[name]] = (cell, "bound", f"`{name}` is bound by {how}")
    return found


SAFE_DECORATORS = ("torch", "functools")  # a graded def under these is the def itself


def _module_bindings(tree: ast.Module, names: set[str]) -> list[tuple[str, str]]:
    """(name, how) for each binding of one of ``names`` in the module's namespace other than a
    top-level def or class: an import, an assignment, one inside a loop, ``with``, ``if``,
    ``try`` or ``match`` at module level, a ``global`` statement in a function, a write by the
    name as a string into any mapping (``globals()["f"] = ...``, an alias of it,
    ``setattr(module, "f", ...)``, ``.update(f=...)``), a decorator over the def (other than
    torch's or functools')."""
    found: list[tuple[str, str]] = []

    def note(name, what, node):
        if name in names:
            found.append((name, f"{what} (line {getattr(node, 'lineno', '?')})"))

    def module_level(stmts, top):
        for s in stmts:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if not top:
                    note(s.name, "a definition inside other code", s)
                elif s.decorator_list and not all(_safe(d) for d in s.decorator_list):
                    note(s.name, "a decorator over its definition", s)
                continue
            if isinstance(s, (ast.Import, ast.ImportFrom)):
                where = f" from {s.module}" if isinstance(s, ast.ImportFrom) else ""
                for a in s.names:
                    note((a.asname or a.name).split(".")[0], f"an import{where}", s)
            assigned = isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign))
            what = "an assignment" if assigned else f"a module-level `{type(s).__name__.lower()}`"
            for n in _stores(s):
                note(n.id if isinstance(n, ast.Name) else n.name, what, n)
            for child in ("body", "orelse", "finalbody"):
                module_level(getattr(s, child, []), False)
            for h in getattr(s, "handlers", []):
                module_level(h.body, False)
            for case in getattr(s, "cases", []):
                module_level(case.body, False)

    def _stores(s):
        """Names a statement binds itself (its own targets, not those of its inner blocks)."""
        heads = [
            getattr(s, f)
            for f in ("target", "targets", "items", "subject", "test", "value")
            if hasattr(s, f)
        ]
        heads += [c.pattern for c in getattr(s, "cases", [])]
        out = []
        for head in heads:
            for n in (
                ast.walk(head)
                if isinstance(head, ast.AST)
                else (x for h in head for x in ast.walk(h))
            ):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    out.append(n)
                elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
                    out.append(n)
        return out

    module_level(tree.body, True)
    for n in ast.walk(tree):
        if isinstance(n, ast.Global):
            for name in n.names:
                note(name, "a `global` statement", n)
        elif isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store):
            if isinstance(n.slice, ast.Constant):  # any mapping: globals(), or an alias of it
                note(n.slice.value, "a write by its name", n)
        elif isinstance(n, ast.Call) and _writes(n):
            for a in [*n.args, *n.keywords]:
                key = a.arg if isinstance(a, ast.keyword) else getattr(a, "value", None)
                if isinstance(key, str):
                    note(key, "a write by its name", n)
    return found


def _writes(call: ast.Call) -> bool:
    """``setattr(...)``, or ``update``/``__setitem__``/``setdefault`` of any mapping (a
    namespace, or an alias of one: which object it is shows only when the code runs)."""
    f = call.func
    if isinstance(f, ast.Name):
        return f.id == "setattr"
    return isinstance(f, ast.Attribute) and f.attr in ("update", "__setitem__", "setdefault")


def _safe(decorator: ast.expr) -> bool:
    root = decorator.func if isinstance(decorator, ast.Call) else decorator
    while isinstance(root, ast.Attribute):
        root = root.value
    return isinstance(root, ast.Name) and root.id in SAFE_DECORATORS


def _cannot_work(node: ast.stmt) -> bool:
    """A definition that always raises (a ``raise`` among its body's own statements, as the
    stubs do) or computes nothing (only ``pass``, constants, ``return`` of a constant); a
    class with such a method. Code that scored did not come from it."""
    if isinstance(node, ast.ClassDef):
        return any(_cannot_work(s) for s in node.body if isinstance(s, ast.FunctionDef))
    body = node.body
    if any(isinstance(s, ast.Raise) for s in body):
        return True
    inert = (ast.Pass, ast.Expr, ast.Return)
    return all(
        isinstance(s, inert)
        and (getattr(s, "value", None) is None or isinstance(s.value, ast.Constant))
        for s in body
    )


def _written(ex) -> bool:
    """An exercise whose graded object is code the learner writes (a function or a class), not
    a variable the notebook assigns (a trained model: ``vit = VisionTransformer(...)``; a
    question's answer: ``q_period = 11.2``)."""
    return getattr(ex, "kind", "") not in ("trained", "question")


def _opaque_calls(trees: list[ast.Module]) -> list[str]:
    """``exec``, ``eval`` or ``compile`` of a string built at run time (decoded, joined...),
    and a write into the module's namespace under a name built at run time
    (``globals()["soft" + "max"] = ...``): code nobody can compare, the report says so."""
    found = []
    for tree in trees:
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.ctx, ast.Store)
                and _namespace(node.value)
                and not isinstance(node.slice, ast.Constant)
            ):
                found.append(f"line {node.lineno}: a write into globals() under a built name")
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            literal = isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
            if name in RUNS_TEXT and not literal:
                found.append(f"line {node.lineno}: {name}() of a string built at run time")
    return found[:5]


def _namespace(expr: ast.expr) -> bool:
    """``globals()``, ``vars(...)``, ``locals()``, or a ``__dict__``: a namespace as a dict."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
        return expr.func.id in ("globals", "vars", "locals")
    return isinstance(expr, ast.Attribute) and expr.attr == "__dict__"
