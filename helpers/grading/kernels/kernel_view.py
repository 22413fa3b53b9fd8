"""The ``helpers`` package as a grading kernel sees it: no reference for the notebook graded.

The grader makes, per job slot, a folder ``view`` holding a filtered copy of the package; the
sandbox binds ``view/helpers`` read-only over the real package (``sandbox.bwrap_command``),
and an unconfined kernel imports it first (``PYTHONPATH``). Before each submission the grader
fills it for that submission's notebook (:func:`fill`). The copy has:

- ``helpers.blocks``: only the modules of earlier notebooks (the lessons import them; a block
  module says which notebook it comes from in its first line), and an ``__init__`` that
  imports those alone;
- ``helpers.checks``: the kernel side, ``run/``, and an ``__init__`` whose ``check()`` only
  says that the grader checks the exercise (the grader judges in its own process; its own
  copy of ``run/`` is sent to the kernel as text, run.py);
- ``helpers.grading``: the modules the sandbox runs (the zygote, the limits), not the judge;
- everything else of the package (``device``, ``plotting``, ``data``...), not the notebook tools.

So the reference of the exercises graded is not in the kernel's files nor in its memory.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import helpers

from . import scratch

PACKAGE = Path(helpers.__file__).resolve().parent
# the modules of helpers.grading that run inside a sandbox (paths within helpers/grading)
SANDBOX_MODULES = (
    "__init__.py",
    "limits.py",
    "kernels/__init__.py",
    "kernels/zygote.py",
    "kernels/pipe.py",
)
LEFT_OUT = ("notebooks",)  # the notebook tools: no kernel needs them

CHECKS_STUB = '''"""In a grading kernel the inline checks are not here: the grader judges
every exercise in its own process, on inputs of its own, after the notebook has run."""

from types import SimpleNamespace as CheckResult

EXERCISES = {}
MESSAGE = "{exercise}: checked by the grader after the notebook runs (not in this kernel)."


def check(exercise_id, candidate=None, *, seed=None, quiet=False, **options):
    message = MESSAGE.format(exercise=exercise_id)
    result = CheckResult(
        exercise=str(exercise_id), passed=False, points=0.0, max_points=0.0,
        messages=[message], status="missing", mistake="",
    )
    if not quiet:
        print(message)
    return result


__all__ = ["check", "EXERCISES", "CheckResult"]
'''


def block_notebook(text: str) -> str | None:
    """The notebook a block module was exported from ("02", "07b"), from its first line."""
    first = text.split("\n", 1)[0]
    found = re.search(r"solutions/(\d\d[a-z]?)_", first)
    return found.group(1) if found else None


@functools.cache
def _files(notebook: str | None) -> tuple[tuple[str, bytes], ...]:
    """(path relative to the package, content) of the view for ``notebook``."""
    out: list[tuple[str, bytes]] = []
    blocks: list[str] = []
    for path in sorted(PACKAGE.rglob("*")):
        rel = path.relative_to(PACKAGE)
        if not path.is_file() or "__pycache__" in rel.parts or rel.parts[0] in LEFT_OUT:
            continue
        top = rel.parts[0]
        if top == "checks" and rel.parts[1] != "run":
            continue  # the judge side
        if top == "grading" and Path(*rel.parts[1:]).as_posix() not in SANDBOX_MODULES:
            continue
        if top == "blocks" and rel.suffix == ".py":
            if rel.name == "__init__.py":
                continue
            nb = block_notebook(path.read_text(encoding="utf-8"))
            if nb is None or notebook is None or nb >= notebook:
                continue
            blocks.append(rel.stem)
        out.append((rel.as_posix(), path.read_bytes()))
    out.append(("checks/__init__.py", CHECKS_STUB.encode()))
    init = '"""The blocks of the notebooks before the one graded."""\n\n' + "".join(
        f"from .{b} import *  # noqa: F401,F403\n" for b in blocks
    )
    out.append(("blocks/__init__.py", init.encode()))
    return tuple(out)


def fill(view: Path, notebook: str | None) -> Path:
    """Make ``view/helpers`` the package as a kernel grading ``notebook`` sees it; returns it."""
    root = view / "helpers"
    root.mkdir(parents=True, exist_ok=True)
    scratch.empty(root)  # the folder itself stays: a sandbox has it bound
    root.chmod(0o755)  # emptying made it its owner's alone: a kernel of another user reads it
    for rel, data in _files(notebook):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root
