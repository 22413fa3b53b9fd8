"""The import rules of ``helpers/`` (CONTRIBUTING.md, "Import rules"), read from the source.

The imports of a module are every import statement in its file, at top level or inside a
function (a lazy import counts), except those under ``if TYPE_CHECKING:``; an
``importlib.import_module`` call counts when its name is a string literal (a computed name does
not). ``from P import n`` imports the module ``P.n`` when there is one, else ``P``.
"""

from __future__ import annotations

import ast
from pathlib import Path

HELPERS = Path(__file__).resolve().parent.parent / "helpers"
CHECKS = "helpers.checks"
KERNEL_SIDE = "helpers.checks.run"  # what a grading kernel gets: calls the learner's objects
MAX_FLOORS = 3
LEARNER = [
    "helpers.plotting",
    "helpers.widgets",
    "helpers.training",
    "helpers.data",
    "helpers.device",
    "helpers.my_blocks",
]
EXERCISES = HELPERS / "checks" / "exercises"  # exercises/NN/<name>.py: one exercise's check


def module_files() -> dict[str, Path]:
    """Every module of helpers/: ``helpers.checks.nb02`` -> its file (packages: __init__.py)."""
    found = {}
    for path in sorted(HELPERS.rglob("*.py")):
        parts = path.relative_to(HELPERS.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = module_files()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _statements(node: ast.AST):
    """The nodes under ``node``, those under ``if TYPE_CHECKING:`` left out."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                yield other
                yield from _statements(other)
            continue
        yield child
        yield from _statements(child)


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    base = package.split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(module: str) -> set[str]:
    """The helpers modules ``module`` imports (see the module's docstring)."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found = set()
    for node in _statements(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, node)
            subs = [f"{source}.{a.name}" for a in node.names if f"{source}.{a.name}" in MODULES]
            found.update(subs)
            if len(subs) < len(node.names):
                found.add(source)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.add(node.args[0].value)
    return {name for name in found if name in MODULES and name != module}


GRAPH = {module: sorted(imports_of(module)) for module in MODULES}


def circles(graph: dict[str, list[str]]) -> list[list[str]]:
    """One circle per strongly connected component of more than one module (Tarjan), each
    written as the chain that closes it: ``a -> b -> a``."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    components = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(set(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [_closing_chain(graph, c) + _others(graph, c) for c in components]


def _others(graph: dict[str, list[str]], component: set[str]) -> list[str]:
    """The component's modules the shortest circle leaves out, as ``(also: a, b)``."""
    left = sorted(component - set(_closing_chain(graph, component)))
    return [f"(also in the circle: {', '.join(left)})"] if left else []


def _closing_chain(graph: dict[str, list[str]], component: set[str]) -> list[str]:
    """The shortest chain from the component's first module back to itself (breadth first)."""
    start = min(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in graph[v]:
            if w == start:
                return paths[v] + [start]
            if w in component and w not in paths:
                paths[w] = paths[v] + [w]
                queue.append(w)
    raise AssertionError(f"no circle through {start}")


def _kernel_side(m: str) -> bool:
    return m == KERNEL_SIDE or m.startswith(KERNEL_SIDE + ".")


def _judge_side(m: str) -> bool:
    return (m == CHECKS or m.startswith(CHECKS + ".")) and not _kernel_side(m)


def floors(graph: dict[str, list[str]], side=_judge_side) -> dict[str, list[str]]:
    """Module of one side of checks/ (``side``: which modules) -> the chain that sets its floor
    (its length is the floor): the module, then the module of that side it imports with the
    highest floor, and so on down to floor 1. An edge that closes a circle is left out here
    (rule 1 reports the circle)."""
    chain: dict[str, list[str]] = {}

    def visit(v: str, on_stack: tuple[str, ...]) -> list[str]:
        if v not in chain:
            below = [
                visit(w, (*on_stack, v))
                for w in graph[v]
                if side(w) and w not in on_stack and w != v
            ]
            chain[v] = [v, *max(below, key=len, default=[])]
        return chain[v]

    for v in sorted(m for m in graph if side(m)):
        visit(v, ())
    return chain


def _defines_exercises(module: str) -> bool:
    """A module of ``exercises/`` with a ``...Check`` class: one that defines an exercise."""
    path = MODULES[module]
    if EXERCISES not in path.parents:
        return False
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(n, ast.ClassDef) and n.name.endswith("Check") for n in tree.body)


def reaches(graph: dict[str, list[str]], start: str, targets) -> list[str] | None:
    """The shortest import chain from ``start`` to a module for which ``targets`` is true."""
    paths = {start: [start]}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in graph[v]:
            if w not in paths:
                paths[w] = paths[v] + [w]
                if targets(w):
                    return paths[w]
                queue.append(w)
    return None


def offending(graph: dict[str, list[str]], starts: list[str], targets) -> list[list[str]]:
    """Per forbidden import (the chain's last step), the shortest chain from ``starts`` to it."""
    shortest: dict[tuple[str, str], list[str]] = {}
    for start in starts:
        chain = reaches(graph, start, targets)
        if chain and len(chain) < len(shortest.get((chain[-2], chain[-1]), chain + [""])):
            shortest[(chain[-2], chain[-1])] = chain
    return sorted(shortest.values())


def _lines(chains) -> str:
    return "\n".join("  " + " -> ".join(c) for c in chains)


def test_the_reader_sees_lazy_imports_and_skips_type_checking():
    # export.run imports export_mine inside the function; checks/__init__ at top level
    assert "helpers.notebooks.export_mine" in GRAPH["helpers.notebooks.export"]
    assert "helpers.checks.framework" in GRAPH[CHECKS]  # `from .framework import ...`
    source = (
        "import x\nif TYPE_CHECKING:\n    import y\nelse:\n    import z\ndef f():\n    import w\n"
    )
    names = {
        a.name for n in _statements(ast.parse(source)) if isinstance(n, ast.Import) for a in n.names
    }
    assert names == {"x", "z", "w"}


def test_circles_and_floors_are_found_on_a_made_up_graph():
    graph = {"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}
    assert circles(graph) == [["a", "b", "c", "a"]]
    made_up = {f"{CHECKS}.{k}": [f"{CHECKS}.{x}" for x in v] for k, v in graph.items()}
    made_up[f"{CHECKS}.e"] = []
    chain = floors(made_up)
    assert len(chain[f"{CHECKS}.d"]) == 4 and len(chain[f"{CHECKS}.e"]) == 1


def test_rule_1_no_circles():
    found = circles(GRAPH)
    assert not found, f"import circles in helpers/ (rule 1):\n{_lines(found)}"


def test_rule_2_each_side_of_checks_has_at_most_three_floors():
    chain = floors(GRAPH) | floors(GRAPH, _kernel_side)
    too_high = [c for c in chain.values() if len(c) > MAX_FLOORS]
    exercise_modules = {m for m in chain if _defines_exercises(m)}
    crossing = [[m, w] for m in sorted(exercise_modules) for w in GRAPH[m] if w in exercise_modules]
    problems = []
    if too_high:
        problems.append(
            f"checks/ modules above floor {MAX_FLOORS} (the chain that lifts each):\n"
            + _lines(sorted(too_high, key=lambda c: (-len(c), c)))
        )
    if crossing:
        problems.append("exercise modules importing another exercise module:\n" + _lines(crossing))
    assert not problems, "rule 2:\n" + "\n".join(problems)


def test_rule_2b_the_kernel_side_imports_nothing_of_the_judge():
    """checks/run/ (what a grading kernel gets, whole) reaches neither the judge side of
    checks/ nor helpers.grading: besides itself, only the learner's modules (``helpers.device``,
    of which the grader ships a private copy, and the course's blocks, the stand-ins for a
    learner's parts: a kernel sees those of earlier notebooks only)."""
    kernel = sorted(m for m in MODULES if _kernel_side(m))
    assert len(kernel) > 5, kernel
    judge = lambda w: _judge_side(w) or w.startswith("helpers.grading")  # noqa: E731
    chains = offending(GRAPH, kernel, judge)
    assert not chains, f"the kernel side of checks/ reaches the judge (rule 2b):\n{_lines(chains)}"


def test_rule_3_learner_modules_import_neither_checks_nor_grading():
    learner = LEARNER + sorted(m for m in MODULES if m.startswith("helpers.blocks"))
    assert set(LEARNER) <= set(MODULES), set(LEARNER) - set(MODULES)
    chains = offending(
        GRAPH, learner, lambda w: w.startswith(("helpers.checks", "helpers.grading"))
    )
    assert not chains, (
        f"learner modules that reach helpers.checks or helpers.grading (rule 3):\n{_lines(chains)}"
    )


def test_rule_4_grading_does_not_import_the_notebook_tools():
    grading = sorted(m for m in MODULES if m.startswith("helpers.grading"))
    chains = offending(GRAPH, grading, lambda w: w.startswith("helpers.notebooks"))
    assert not chains, f"helpers.grading reaches helpers.notebooks (rule 4):\n{_lines(chains)}"
