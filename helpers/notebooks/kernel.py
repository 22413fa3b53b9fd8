"""The one nbclient driver: a notebook top to bottom in a fresh kernel (execute and bench)."""

from __future__ import annotations

import time
from pathlib import Path

import nbformat


def run_fresh(
    nb: nbformat.NotebookNode, folder: Path, timeout: int, kernel: str = "python3"
) -> tuple[float, Exception | None]:
    """Execute ``nb`` in place (outputs filled in) with ``folder`` as the working directory.

    Returns the wall time, kernel start included, and the exception that stopped it (a failing
    cell or a timeout), or None.
    """
    from nbclient import NotebookClient

    client = NotebookClient(
        nb, timeout=timeout, kernel_name=kernel, resources={"metadata": {"path": str(folder)}}
    )
    start = time.perf_counter()
    error = None
    try:
        client.execute()
    except Exception as exc:  # the caller decides: execute re-raises, bench reports
        error = exc
    return time.perf_counter() - start, error
