"""The learner's notebooks -> their own blocks (``python -m helpers export --mine``).

For each notebook in ``--from`` (default: the working directory if it holds the learner's
notebooks, else its ``notebooks/``) whose metadata names a module (``course.export``), write its
``#| export`` cells to ``--to`` (default ``my_blocks/`` in that folder, where a kernel started
on those notebooks looks: ``helpers.my_blocks.folder``) as ``NAME.py``, import it, run the
check of every exercise it defines on the learner's object and record the verdicts in
``manifest.json``. ``helpers.my_blocks`` reads that manifest when a kernel runs with
``HELPERS_BLOCKS=mine``.

The notebooks are done in order, with ``HELPERS_BLOCKS=mine`` set in this process: a learner's
module that imports an earlier block gets the one the later notebooks will get (the learner's
if its check passed), so each check runs on what will be used.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from .. import my_blocks
from .common import exported_code, load_notebook, notebook_number, public_names


def course_number(path: Path) -> str | None:
    """The notebook's number: from its metadata (``course.notebook``), which survives a rename
    such as Colab's "Copy of 03_...", else from its name; None for another notebook."""
    try:
        number = load_notebook(path).metadata.get("course", {}).get("notebook")
    except ValueError:  # not a notebook at all: its name decides
        number = None
    return number or notebook_number(path)


def learner_paths(source: Path) -> list[Path]:
    """The learner's notebooks in ``source``, in order: one per number, the most recently
    modified where several copies have the same number."""
    newest: dict[str, Path] = {}
    for path in sorted(source.glob("*.ipynb"), key=lambda p: p.stat().st_mtime):
        number = course_number(path)
        if number:
            newest[number] = path
    return [newest[n] for n in sorted(newest)]


def default_source() -> Path:
    """The working directory when it holds the learner's notebooks (Jupyter, Colab after
    ``%cd``), else its ``notebooks/`` (the repository's root, as ``make lab-mine`` runs)."""
    here = Path.cwd()
    return here if learner_paths(here) else here / "notebooks"


def export_module(path: Path, out: Path) -> tuple[str, dict[str, Any]] | None:
    """Write one notebook's exported cells to ``out/NAME.py`` and check its blocks:
    (NAME, manifest entry), or None when the notebook exports nothing."""
    nb = load_notebook(path)
    course = nb.metadata.get("course", {})
    name = course.get("export")
    if not name:
        return None
    number = course.get("notebook") or notebook_number(path)  # from learner_paths: not None
    code = exported_code(nb)
    header = (
        f'"""Your blocks, copied from {path.name} by `python -m helpers export --mine`: edit '
        'the notebook and export again, not this file."""\n\n'
    )
    (out / f"{name}.py").write_text(header + code + "\n", encoding="utf-8")
    entry = {"notebook": str(path.resolve()), "mtime": path.stat().st_mtime, "blocks": {}}
    try:
        public = public_names(code)
        module = my_blocks.load_learner_module(name, out)
    except Exception as exc:  # a syntax error, or an import that fails: no block is used
        return name, {**entry, "error": f"{type(exc).__name__}: {exc}"}
    from ..checks import EXERCISES, check

    # the reference module, on the earlier blocks as chosen so far (this one is not in the
    # manifest yet, so it is all reference): what stands in for a block that fails
    reference = importlib.import_module(f"helpers.blocks.{name}")
    for block in public:
        exercise = f"{number}.{block}"
        if exercise not in EXERCISES:
            continue
        result = check(exercise, getattr(module, block), quiet=True)
        first = result.messages[0] if result.messages else ""
        entry["blocks"][block] = {"exercise": exercise, "status": result.status, "message": first}
        if not result.passed:  # the learner's later blocks in this module run on the reference
            setattr(module, block, getattr(reference, block))
    return name, entry


def export_mine(source: Path, out: Path) -> dict[str, Any]:
    """Export and check the learner's blocks; write and return the manifest.

    Sets HELPERS_BLOCKS=mine in this process and imports ``helpers.blocks`` modules with the
    learner's blocks in them: run it in a process of its own (the command line does).
    """
    out.mkdir(parents=True, exist_ok=True)
    (out / my_blocks.MANIFEST).unlink(missing_ok=True)  # a previous export's must not count
    os.environ[my_blocks.ENV] = "mine"
    os.environ[my_blocks.DIR_ENV] = str(out.resolve())
    manifest: dict[str, Any] = {"source": str(source.resolve()), "time": time.time(), "modules": {}}
    for path in learner_paths(source):
        done = export_module(path, out)
        if done:
            name, manifest["modules"][name] = done
            (out / my_blocks.MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
            # now helpers.blocks.NAME hands out the learner's blocks that passed, as it will
            # in the notebooks, to the learner's modules exported next
            blocks = sys.modules.get(f"helpers.blocks.{name}")
            if blocks is not None:
                my_blocks.prefer_mine(vars(blocks), my_blocks.NOTEBOOK[blocks.__name__])
    return manifest


def table(manifest: dict[str, Any]) -> list[str]:
    """One line per block: exercise, check verdict, and which version later notebooks use."""
    lines = [f"{'exercise':<34} {'check':<8} used by later notebooks"]
    for name, entry in manifest["modules"].items():
        if "error" in entry:
            lines.append(f"{name + '.py':<34} {'error':<8} reference: {entry['error']}")
        for block in entry["blocks"].values():
            used = "yours" if block["status"] == "passed" else "reference"
            status = "todo" if block["status"] == "missing" else block["status"]
            why = f": {block['message'][:70]}" if status in ("failed", "error") else ""
            lines.append(f"{block['exercise']:<34} {status:<8} {used}{why}")
    return lines


def run_mine(source: Path | None, out: Path | None) -> int:
    source = source or default_source()
    out = out or Path(os.environ.get(my_blocks.DIR_ENV) or source / my_blocks.DIR_NAME)
    manifest = export_mine(source, out)  # ValueError for a malformed notebook
    if not manifest["modules"]:
        raise ValueError(f"no notebook in {source} exports blocks (metadata course.export)")
    print("\n".join(table(manifest)))
    how = f"start Jupyter with {my_blocks.ENV}=mine (`make lab-mine` does)"
    if out.resolve() != (source / my_blocks.DIR_NAME).resolve():
        how += f" and {my_blocks.DIR_ENV}={out.resolve()}"
    print(
        f"\nWritten to {out}. To run the later notebooks on your blocks: {how}; in Colab, "
        f"`%env {my_blocks.ENV}=mine` in a cell before the notebook's first cell."
    )
    return 0
