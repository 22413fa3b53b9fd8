"""No random draw behind a device branch in a solved notebook (the same stored outputs on CPU
and GPU).

A cell that draws from the shared generator, or from torch's global one, only when
``device.type == "cuda"`` leaves every later draw of the notebook different on a GPU from the
stored CPU run: notebook 08 did (its fused-kernel timings drew from ``gen``), and on the first
GPU it met two later cells printed other numbers. The rule, held on every code cell of
``solutions/`` without a GPU: inside an ``if`` or a conditional expression whose condition asks
about the device (``device``, ``cuda``, ``mps``, ``is_available``), no code may use the
notebook's shared generator (a name bound to ``seed_everything(...)``) or call a random
function without a ``generator=`` of its own.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
SOLVED = sorted((ROOT / "solutions").rglob("*.ipynb"))  # with the worked solutions (open/)
DEVICE_WORDS = re.compile(r"device|cuda|mps|is_available|accelerator")
# torch's functions that draw from a generator (the global one when none is given)
RANDOM = {
    "rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like",
    "normal", "normal_", "uniform_", "bernoulli", "bernoulli_", "multinomial", "dropout",
    "manual_seed", "seed", "seed_everything", "shuffle", "random", "choice", "permutation",
}  # fmt: skip
GLOBAL_SEEDERS = {"torch", "torch.cuda", "random", "np.random", "numpy.random", "seed_everything"}


def _code(cell_source: str) -> ast.Module | None:
    lines = [line for line in cell_source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


def shared_generators(trees: list[ast.Module]) -> set[str]:
    """Names bound to ``seed_everything(...)`` in the notebook (``gen``)."""
    names = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                func = node.value.func
                if getattr(func, "id", getattr(func, "attr", "")) == "seed_everything":
                    names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def draws(body: list[ast.AST], shared: set[str]) -> list[str]:
    """What in ``body`` draws from a generator the rest of the notebook shares."""
    found = []
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and node.id in shared:
                found.append(f"line {node.lineno}: uses {node.id}")
            elif isinstance(node, ast.Call):
                name = getattr(node.func, "attr", getattr(node.func, "id", ""))
                own = any(k.arg == "generator" for k in node.keywords)
                receiver = ast.unparse(getattr(node.func, "value", node.func))
                if name in ("manual_seed", "seed") and receiver not in GLOBAL_SEEDERS:
                    continue  # torch.Generator().manual_seed(0): a generator of its own
                if name in RANDOM and not own:
                    found.append(f"line {node.lineno}: {name}() without a generator of its own")
    return found


def device_branch_draws(source: str, shared: set[str]) -> list[str]:
    tree = _code(source)
    if tree is None:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.If, ast.IfExp)) and DEVICE_WORDS.search(ast.unparse(node.test)):
            body = node.body if isinstance(node.body, list) else [node.body]
            orelse = node.orelse if isinstance(node.orelse, list) else [node.orelse]
            found += draws(body + orelse, shared)
    return found


def notebook_draws(path: Path) -> list[str]:
    nb = nbformat.read(str(path), as_version=4)
    cells = [c for c in nb.cells if c.cell_type == "code"]
    shared = shared_generators([t for c in cells if (t := _code(c.source)) is not None])
    return [
        f"cell {i}, {found}"
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code"
        for found in device_branch_draws(cell.source, shared)
    ]


@pytest.mark.parametrize("path", SOLVED, ids=[p.stem for p in SOLVED])
def test_no_random_draw_behind_a_device_branch(path):
    assert notebook_draws(path) == []


def test_the_rule_finds_the_draw_that_moved_08_on_a_gpu():
    """The control: 08's timing cell as it was when the first GPU run measured it."""
    before = (
        "gen = seed_everything(0)\n"
        "if device.type == 'cuda':\n"
        "    q, k, v = (torch.randn(4, 8, T, 64, generator=gen).to(device) for _ in range(3))\n"
        "else:\n"
        "    print('no CUDA GPU here')\n"
    )
    assert device_branch_draws(before, {"gen"}) == ["line 3: uses gen"]
    after = before.replace("generator=gen", "generator=timing")
    assert device_branch_draws(after, {"gen"}) == []
    assert device_branch_draws("if x.is_cuda:\n    torch.manual_seed(1)\n", set())
