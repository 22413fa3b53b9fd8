"""Execute notebooks in a fresh kernel and store their outputs (``python -m helpers execute``)."""

from __future__ import annotations

import argparse
from pathlib import Path

import nbformat

from .kernel import run_fresh


def execute(path: Path, timeout: int = 300, kernel: str = "python3") -> float:
    """Run ``path`` top to bottom in a fresh kernel, write outputs back; return seconds."""
    if not path.is_file():
        raise ValueError(f"{path}: no such notebook")
    nb = nbformat.read(str(path), as_version=4)
    seconds, error = run_fresh(nb, path.parent, timeout, kernel)
    if error is not None:  # the cell's traceback is in the message
        raise ValueError(f"{path}: {type(error).__name__}: {error}") from error
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    nbformat.write(nb, str(path))
    return seconds


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", type=Path)
    p.add_argument("--timeout", type=int, default=300, help="seconds per cell")


def run(args: argparse.Namespace) -> int:
    for path in args.paths:
        seconds = execute(path, timeout=args.timeout)
        print(f"{path}: {seconds:.1f} s")
    return 0
