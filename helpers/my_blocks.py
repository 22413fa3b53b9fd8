"""Your code, all the way up: the later notebooks on the blocks the learner wrote (opt-in).

``python -m helpers export --mine`` copies the ``#| export`` cells of the learner's notebooks
to ``my_blocks/NAME.py`` beside them, runs each exercise's check on the learner's object and
records in ``manifest.json`` which passed (``helpers/notebooks/export_mine.py``). A kernel finds
that folder in its working directory, which Jupyter sets to the notebook's own folder (in Colab:
``%cd`` to the notebooks' folder first), or where ``HELPERS_MY_BLOCKS`` says: never inside the
installed package. With the
environment variable ``HELPERS_BLOCKS=mine`` each module ``helpers.blocks.NAME`` then ends by
handing out the learner's object for every name whose check passed, and keeps the reference
for the rest. Without it nothing here changes anything: the solved notebooks, nbval and the
grader always run on the reference blocks.

The learner's files load as modules ``my_blocks.NAME``; their own ``from helpers.blocks.X
import ...`` lines then get X's names as chosen here, so a learner's block is built on the
learner's earlier blocks wherever those passed too.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import os
import sys
import types
import warnings
from pathlib import Path
from typing import Any

ENV = "HELPERS_BLOCKS"  # "mine": the learner's blocks that pass; unset or "reference": none
DIR_ENV = "HELPERS_MY_BLOCKS"  # where they are, if not in ./my_blocks
DIR_NAME = "my_blocks"  # the folder beside the learner's notebooks
MANIFEST = "manifest.json"
PACKAGE = "my_blocks"  # the learner's NAME.py is imported as my_blocks.NAME

# "helpers.blocks.NAME" -> {public name: "yours" or "reference (why)"}, as each module loads
IN_USE: dict[str, dict[str, str]] = {}
NOTEBOOK: dict[str, str] = {}  # "helpers.blocks.NAME" -> its notebook, "03"
EXERCISES: dict[str, tuple[str, ...]] = {}  # "helpers.blocks.NAME" -> its names that are exercises
_WARNED: set[str] = set()  # the values of HELPERS_BLOCKS already warned about
# a check's status (CheckResult.status) -> why the reference is used
REASONS = {"failed": "your check failed", "error": "your code raised", "missing": "not written"}


def wanted() -> bool:
    """True when this process was asked to use the learner's blocks (HELPERS_BLOCKS=mine)."""
    value = os.environ.get(ENV, "").strip().lower()
    if value not in ("", "reference", "mine", *_WARNED):
        _WARNED.add(value)  # once, not once per module
        warnings.warn(
            f"{ENV}={value!r} is neither 'mine' nor 'reference': using the reference", stacklevel=3
        )
    return value == "mine"


def folder() -> Path:
    """The folder of the learner's exported blocks and their manifest: ``HELPERS_MY_BLOCKS``,
    else ``my_blocks`` in the working directory (a notebook kernel's is the notebook's folder)."""
    return Path(os.environ.get(DIR_ENV) or Path.cwd() / DIR_NAME)


def read_manifest(where: Path | None = None) -> dict[str, Any] | None:
    """The manifest ``export --mine`` wrote, or None when there is none."""
    path = (where or folder()) / MANIFEST
    if not path.exists():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def load_learner_module(name: str, where: Path | None = None) -> types.ModuleType:
    """Import the learner's ``NAME.py`` as ``my_blocks.NAME`` (once per process)."""
    full = f"{PACKAGE}.{name}"
    if full in sys.modules:
        return sys.modules[full]
    where = where or folder()
    if PACKAGE not in sys.modules:  # a bare parent package, so that pickle can find the classes
        parent = types.ModuleType(PACKAGE, "The learner's blocks (helpers/my_blocks.py).")
        parent.__path__ = [str(where)]
        sys.modules[PACKAGE] = parent
    spec = importlib.util.spec_from_file_location(full, where / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[full] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[full]
        raise
    return module


def prefer_mine(namespace: dict[str, Any], notebook: str, exercises: tuple[str, ...] = ()) -> None:
    """The last line of each generated ``helpers/blocks/NAME.py``: with HELPERS_BLOCKS=mine,
    put the learner's object in place of each public name whose check passed. ``exercises``:
    the public names that are exercises of ``notebook`` (the exporter reads them from the
    notebook's exercise cells), the blocks :func:`blocks_in_use` lists.

    It goes both ways: in the learner's module, each exercise whose check did not pass is
    replaced by the reference, so that a learner's block that passed never runs a sibling that
    failed (``export --mine`` checks each block in that same mix).
    """
    module = namespace["__name__"]
    name = module.rsplit(".", 1)[1]
    NOTEBOOK[module] = notebook
    EXERCISES[module] = tuple(exercises)
    IN_USE[module] = choice = dict.fromkeys(namespace["__all__"], "reference")
    manifest = read_manifest() if wanted() else None
    if manifest is None:
        return
    entry = manifest.get("modules", {}).get(name, {})
    blocks = entry.get("blocks", {})
    for public in choice:  # "error": the exported cells themselves raise (a syntax error ...)
        status = blocks.get(public, {}).get(
            "status", "error" if "error" in entry else "not exported"
        )
        choice[public] = f"reference ({REASONS.get(status, status)})"
    if not any(b.get("status") == "passed" for b in blocks.values()):
        return
    try:
        mine = load_learner_module(name)
    except Exception as exc:  # the learner's file may have changed since its checks ran
        warnings.warn(
            f"{folder() / name}.py does not import ({exc!r}): using the reference", stacklevel=2
        )
        choice.update(dict.fromkeys(choice, "reference (your file does not import)"))
        return
    for public, block in blocks.items():
        if block.get("status") == "passed" and hasattr(mine, public):
            namespace[public] = getattr(mine, public)
            choice[public] = "yours"
        elif public in namespace:
            setattr(mine, public, namespace[public])


def _dependencies(module: str) -> list[str]:
    """The helpers.blocks modules that ``module``'s reference file imports from."""
    tree = ast.parse(Path(sys.modules[module].__file__).read_text(encoding="utf-8"))
    return [
        n.module
        for n in tree.body
        if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("helpers.blocks.")
    ]


def blocks_in_use(*names: str) -> None:
    """Print which version, the learner's or the reference, of every block of the modules
    ``helpers.blocks.<name>`` (and of those they are built from) this kernel uses."""
    order: list[str] = []

    def visit(module: str) -> None:
        if module not in order:
            importlib.import_module(module)
            for dep in _dependencies(module):
                visit(dep)
            order.append(module)

    for name in names:
        visit(f"helpers.blocks.{name}")
    order.sort(key=lambda m: NOTEBOOK[m])
    if wanted() and read_manifest() is None:
        print(
            f"Earlier blocks: the course's reference versions: {ENV}=mine, but there is no "
            f"{folder() / MANIFEST} (run `python -m helpers export --mine`)."
        )
    elif wanted():
        print(f"Earlier blocks ({ENV}=mine): yours where its check passed, else the reference.")
    else:
        print("Earlier blocks: the course's reference versions (to use yours, see the README).")
    for module in order:
        nb, used = NOTEBOOK[module], IN_USE[module]
        groups: dict[str, list[str]] = {}  # version -> block names, in the module's order
        for block in (n for n in used if n in EXERCISES[module]):
            groups.setdefault(used[block], []).append(block)
        versions = "; ".join(
            f"{v}: {', '.join(blocks)}"
            for v, blocks in sorted(groups.items(), key=lambda g: g[0] != "yours")
        )
        print(f"  {nb} {module.rsplit('.', 1)[1]:<10} {versions}")
    _warn_if_stale()


def _warn_if_stale() -> None:
    """Say so when a learner's notebook changed after its blocks were exported."""
    manifest = read_manifest() if wanted() else None
    for entry in (manifest or {}).get("modules", {}).values():
        path = Path(entry["notebook"])
        if path.exists() and path.stat().st_mtime > entry["mtime"]:
            print(
                f"  note: {path.name} changed after the export: run `python -m helpers export "
                "--mine` and restart the kernel to use the new code."
            )
