"""Execute notebooks in a fresh kernel and store their outputs (``python -m helpers execute``)."""
from __future__ import annotations

import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient


def execute(path: Path, timeout: int = 300, kernel: str = "python3") -> float:
    """Run ``path`` top to bottom in a fresh kernel, write outputs back; return seconds."""
    nb = nbformat.read(str(path), as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name=kernel,
                            resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - start
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    nbformat.write(nb, str(path))
    return seconds
