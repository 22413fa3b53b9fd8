"""Solution cells -> importable building blocks (``python -m helpers export``).

A solved notebook whose metadata has ``course.export = "NAME"`` exports every code cell whose
first line is ``#| export`` (nbdev's marker) into ``helpers/blocks/NAME.py``, so later notebooks
import what an earlier one built: the code is written once, in the notebook. The module is
generated; a test fails when it is not what this writes. The text goes through ruff (imports
sorted, then formatted, with the project's settings) so that the generated modules pass the
same lint as the hand-written ones while the notebook cells keep their own layout.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from .common import (
    ROOT,
    exported_code,
    load_notebook,
    notebook_number,
    public_names,
    report,
    solution_paths,
    sync,
)


def exported_source(path: Path) -> tuple[str, str] | None:
    """(module name, module text) for one solved notebook, or None if it exports nothing."""
    nb = load_notebook(path)
    name = nb.metadata.get("course", {}).get("export")
    if not name:
        return None
    code = exported_code(nb)
    public = public_names(code)
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    header = (
        f'"""Generated from {rel} by `python -m helpers export`: edit the notebook, '
        'not this file."""\n'
    )
    number = nb.metadata["course"].get("notebook") or notebook_number(path)
    ids = {cell.metadata.get("course", {}).get("exercise") for cell in nb.cells}
    exercises = tuple(n for n in public if f"{number}.{n}" in ids)
    text = (
        header
        + "from helpers.my_blocks import prefer_mine\n"  # isort moves it among the imports
        + code
        + "\n\n__all__ = "
        + repr(public).replace("'", '"')
        + "\n\n# Only with HELPERS_BLOCKS=mine: the learner's blocks whose checks passed replace"
        + " these\n# (helpers/my_blocks.py, `python -m helpers export --mine`).\n"
        + f'prefer_mine(globals(), notebook="{number}", exercises={exercises!r})\n'
    )
    return name, tidy(text, f"helpers/blocks/{name}.py")


def tidy(text: str, filename: str) -> str:
    """``text`` with its imports sorted and formatted by ruff, as ``filename`` would be."""
    for command in (["check", "--select", "I", "--fix-only", "--quiet"], ["format"]):
        done = subprocess.run(
            [sys.executable, "-m", "ruff", *command, "--stdin-filename", filename, "-"],
            input=text,
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        if done.returncode != 0:
            raise ValueError(f"ruff could not process {filename}: {done.stderr.strip()}")
        text = done.stdout
    return text


def package_init(names: list[str]) -> str:
    lines = [
        '"""Building blocks exported from the solved notebooks '
        '(see helpers/notebooks/export.py)."""'
    ]
    lines += [f"from .{n} import *  # noqa: F401,F403" for n in names]
    return "\n".join(lines) + "\n"


def export(root: Path = ROOT, check: bool = False) -> list[str]:
    """Write (or compare) helpers/blocks/*.py. Returns the problems found."""
    out_dir = root / "helpers" / "blocks"
    out_dir.mkdir(exist_ok=True)
    files, names = {}, []
    for path in solution_paths(root):
        result = exported_source(path)
        if result:
            name, text = result
            names.append(name)
            files[f"{name}.py"] = text
    files["__init__.py"] = tidy(package_init(names), "helpers/blocks/__init__.py")
    problems = []
    for fname, text in files.items():
        if sync(out_dir / fname, text, check):
            problems.append(f"helpers/blocks/{fname} is out of date with solutions/")
    for extra in sorted(out_dir.glob("*.py")):
        if extra.name not in files:
            problems.append(f"helpers/blocks/{extra.name} is not exported by any solved notebook")
    return problems


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--check", action="store_true", help="exit 1 if helpers/blocks/ is not current")
    p.add_argument(
        "--mine",
        action="store_true",
        help="export the learner's blocks instead (from --from to --to) and check them; "
        "notebooks run with HELPERS_BLOCKS=mine then use those that pass",
    )
    p.add_argument(
        "--from",
        dest="source",
        type=Path,
        help="--mine: the learner's notebooks (default: here if they are here, else notebooks/)",
    )
    p.add_argument(
        "--to",
        dest="out",
        type=Path,
        help="--mine: output (default: $HELPERS_MY_BLOCKS, else my_blocks/ beside the notebooks)",
    )


def run(args: argparse.Namespace) -> int:
    if args.mine:
        from .export_mine import run_mine

        return run_mine(args.source, args.out)
    return report("export", export, args.check)
