"""The website the tests read: ``make site`` (warnings are errors) into ``build/site/``, built once
per test run however many xdist workers ask for it, under a lock."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

from helpers.notebook_files import load_notebook

REPO = Path(__file__).resolve().parents[2]
SITE = REPO / "build" / "site"


def built() -> Path:
    """``build/site``, built by this test run (``PYTEST_XDIST_TESTRUNUID`` names it)."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid {os.getpid()}"
    marker = REPO / "build" / "site.testrun"
    marker.parent.mkdir(exist_ok=True)
    with open(REPO / "build" / "site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the other worker waits for the same build
        if not (marker.exists() and marker.read_text() == run):
            marker.unlink(missing_ok=True)
            cmd = ["make", "--no-print-directory", "site", f"PY={sys.executable}"]
            done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
            assert done.returncode == 0, f"make site failed:\n{done.stdout}\n{done.stderr}"
            marker.write_text(run)
    return SITE


def figures(solved: Path) -> int:
    """How many figures the solved notebook's outputs hold (a widget's static view included)."""
    cells = load_notebook(solved).cells
    return sum("image/png" in out.get("data", {}) for c in cells for out in c.get("outputs", []))
