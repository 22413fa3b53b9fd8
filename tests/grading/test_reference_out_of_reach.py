"""The reference of the exercises graded is out of reach of a grading kernel, in any disguise.

One batch with the default options (sandbox, ``--jobs 2``): honest notebooks 02 and 05, and
hostile ones that get the course's reference (``helpers.blocks``' version, the checks' float64
formulas) from wherever a kernel could find it: an import, the file on disk, the garbage
collector, ``sys.modules``, a child process. Each then calls it in a disguise a profile hook
would miss (a thread started earlier, a copied code object, ``functools.partial``, the hook
switched off). Every hostile exercise gets 0, every honest classmate full marks.

Unit tests: the check code sent to a kernel (``helpers/checks/run/``, whole) holds no reference
formula and no judge, and the package a kernel sees (kernel_view.py) has no block of the
notebook graded or a later one, and no judge.
"""

from __future__ import annotations

import ast
import csv
import os
import string
import subprocess
import sys

import pytest

from helpers.grading import exercises_of
from helpers.grading.judging.sources import CHECK_SOURCES, CHECKS
from helpers.grading.kernels import sandbox
from helpers.grading.kernels.kernel_view import block_notebook, fill

from .builders import ROOT, load, set_exercise, write

SANDBOXED = sandbox.resolve("auto")[0] == "bwrap"

# where a kernel may look for a reference: returns a callable named ``name`` or None
FIND = r"""
import gc, importlib, os, sys, types
def find(name, module, formula):
    found = []
    try:  # 1. the import every lesson uses
        found.append(getattr(importlib.import_module(module), name))
    except Exception:
        pass
    for root in [os.path.dirname(sys.modules["helpers"].__file__), $root + "/helpers"]:
        path = os.path.join(root, *module.split(".")[1:]) + ".py"
        try:  # 2. the file on disk, at the package's path or the repository's
            ns = {"__name__": "stolen"}
            exec(compile(open(path).read(), "stolen.py", "exec"), ns)
            found.append(ns[name])
        except Exception:
            pass
    for obj in gc.get_objects():  # 3. anything in memory: the checks' formulas included
        if isinstance(obj, (types.FunctionType, type)) and obj.__name__ in (name, formula):
            if getattr(obj, "__module__", "") not in ("__main__", "stolen"):
                found.append(obj)
    for mod in list(sys.modules.values()):  # 4. every module loaded, the grader's own too
        for attr in (name, formula):
            if mod is not None and not mod.__name__.startswith("__main__"):
                value = getattr(mod, attr, None)
                if callable(value):
                    found.append(value)
    return found[0] if found else None
"""

# each: cells before the exercise (get the reference), and the exercise cell that calls it
ATTACKS_02 = {
    "thread": r"""
import queue, threading
REF = find("scaled_dot_product_attention", "helpers.blocks.attention", "attention64")
jobs, answers = queue.Queue(), queue.Queue()
def serve():
    while True:
        args = jobs.get()
        answers.put(REF(*args))
threading.Thread(target=serve, daemon=True).start()
""",
    "child": r"""
import subprocess, sys, torch
def via_child(q, k, v, mask):
    torch.save((q, k, v, mask), "in.pt")
    code = ("import torch; from helpers.blocks.attention import scaled_dot_product_attention as f; "
            "torch.save(f(*torch.load('in.pt')), 'out.pt')")
    subprocess.run([sys.executable, "-c", code], check=True)
    return torch.load("out.pt")
REF = via_child
""",
    "code_copy": r"""
import types
_r = find("scaled_dot_product_attention", "helpers.blocks.attention", "attention64")
REF = _r and types.FunctionType(
    _r.__code__.replace(co_filename="mine.py", co_name="mine"), _r.__globals__, "mine"
)
""",
    "partial": r"""
import functools
REF = functools.partial(find("scaled_dot_product_attention", "helpers.blocks.attention",
                             "attention64"))
""",
    "hook_off": r"""
import sys
_r = find("scaled_dot_product_attention", "helpers.blocks.attention", "attention64")
def REF(*args):
    hook = sys.getprofile()
    sys.setprofile(None)
    try:
        return _r(*args)
    finally:
        sys.setprofile(hook)
""",
}
CALL_02 = {
    "thread": "jobs.put((q, k, v, mask))\n    return answers.get()",
    "child": "return REF(q, k, v, mask)",
}
EXERCISE_02 = (
    "def scaled_dot_product_attention(q, k, v, mask=None):\n"
    "    out, w = {call}\n"
    "    return out.to(q.dtype), w.to(q.dtype)"
)
ATTACK_05 = r"""
import torch
_r = find("LayerNorm", "helpers.blocks.layers", "layer_norm64")
class LayerNorm(torch.nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.inner = _r(d_model, eps) if isinstance(_r, type) else None
        self.weight = torch.nn.Parameter(torch.ones(d_model))
        self.bias = torch.nn.Parameter(torch.zeros(d_model))
        self.eps = eps
    def forward(self, x):
        if isinstance(_r, type):
            self.inner.load_state_dict({"weight": self.weight, "bias": self.bias}, strict=False)
            return self.inner(x)
        return _r(x, self.weight, self.bias, self.eps).to(x.dtype)
"""


def hostile_02(name: str):
    nb = load("02")
    source = string.Template(FIND).substitute(root=repr(str(ROOT))) + ATTACKS_02[name]
    call = CALL_02.get(name, "REF(q, k, v, mask)")
    exercise = source + "\n" + EXERCISE_02.format(call=call)
    return set_exercise(nb, "02.scaled_dot_product_attention", exercise)


def hostile_05():
    source = string.Template(FIND).substitute(root=repr(str(ROOT))) + ATTACK_05
    return set_exercise(load("05"), "05.LayerNorm", source)


def full_marks(notebook: str, but: str = "") -> list[tuple]:
    """(exercise, points, status) of every exercise of ``notebook`` but ``but``: full marks."""
    return [(ex.id, f"{ex.points:g}", "passed") for ex in exercises_of(notebook) if ex.id != but]


@pytest.mark.slow
@pytest.mark.skipif(not SANDBOXED, reason="bubblewrap is not installed")
def test_the_reference_in_any_disguise_gets_nothing(tmp_path):
    subs, out = tmp_path / "subs", tmp_path / "grades.csv"
    write(load("02"), subs / "02_honest.ipynb")
    write(load("05"), subs / "05_honest.ipynb")
    for name in ATTACKS_02:
        write(hostile_02(name), subs / f"02_{name}.ipynb")
    write(hostile_05(), subs / "05_layer_norm.ipynb")
    cmd = [sys.executable, "-m", "helpers", "grade", str(subs), "--out", str(out)]
    cmd += ["--jobs", "2", "--timeout", "60", "--no-progress"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "restarted" not in done.stdout, done.stdout
    with open(out, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    got = {}
    for r in rows:
        got.setdefault(r["submission"], []).append((r["exercise"], r["points"], r["status"]))
    assert got.pop("02_honest.ipynb") == full_marks("02")
    assert got.pop("05_honest.ipynb") == full_marks("05")
    target = {"02": "02.scaled_dot_product_attention", "05": "05.LayerNorm"}
    for label, graded in got.items():
        stolen = [g for g in graded if g[0] == target[label[:2]]]
        assert stolen and stolen[0][1] == "0", (label, graded)
        if label.startswith("02"):  # the masks, questions and backward pass do not use it
            others = [g for g in graded if g[0] != target["02"]]
            assert others == full_marks("02", but=target["02"]), (label, graded)
    assert len(got) == len(ATTACKS_02) + 1


def _functions(text: str, top: bool = False) -> set[str]:
    """Names of the functions and classes ``text`` defines (``top``: at module level only)."""
    tree = ast.parse(text)
    nodes = tree.body if top else ast.walk(tree)
    return {n.name for n in nodes if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


def test_the_kernel_gets_no_reference_formula():
    """The code a kernel gets is the kernel side of the checks and ``device``: no function or
    class of a reference module, no float64 formula (``*64``) defined in a check module, no
    judge, no probes."""
    assert set(CHECK_SOURCES) == {p.stem for p in (CHECKS / "run").glob("*.py")} - {"__init__"} | {
        "device"
    }
    formulas = set()
    for path in CHECKS.rglob("*.py"):  # the judge's side: all but run/, the kernel's
        if path.parent.name == "run":
            continue
        text = path.read_text(encoding="utf-8")
        if path.stem in ("references", "reference") or path.stem.endswith("_reference"):
            formulas |= {n for n in _functions(text, top=True) if not n.startswith("load_")}
        formulas |= {n for n in _functions(text) if n.endswith("64")}
    assert "attention64" in formulas and "vit64" in formulas  # the test sees them
    for stem, (_, text) in CHECK_SOURCES.items():
        assert not _functions(text) & formulas - {"_has_float64"}, stem
    judges = [n for _, t in CHECK_SOURCES.values() for n in _functions(t)]
    assert not {"judge", "judge_value", "probes", "register"} & set(judges)


def test_the_kernel_sees_earlier_blocks_only(tmp_path):
    blocks = {
        p.stem: block_notebook(p.read_text(encoding="utf-8"))
        for p in (ROOT / "helpers" / "blocks").glob("*.py")
        if p.stem != "__init__"
    }
    for notebook in ("02", "05", "09"):
        view = fill(tmp_path / "view", notebook)
        shown = {p.stem for p in (view / "blocks").glob("*.py")} - {"__init__"}
        assert shown == {b for b, nb in blocks.items() if nb < notebook}
        assert sorted(os.listdir(view / "checks")) == ["__init__.py", "run"]
        assert sorted(os.listdir(view / "checks" / "run")) == sorted(
            p.name for p in (CHECKS / "run").glob("*.py")
        )
        assert not (view / "grading" / "judging.py").exists()
    done = subprocess.run(
        [sys.executable, "-c", "import helpers; r = helpers.check('02.x', None); print(r.points)"],
        env={**os.environ, "PYTHONPATH": str(tmp_path / "view")},
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.stdout.splitlines() == [
        "02.x: checked by the grader after the notebook runs (not in this kernel).",
        "0.0",
    ]
