"""The judge's own source files: read once, when the grader starts, and checked at the end.

The kernel side of the checks (``helpers/checks/run/``) is read here once: what each kernel gets
(as text). The grader's process judges with the whole check package. At the end of a batch
:func:`changed_sources` reads every file that decides grades again: one changed during the run
(a submission that reached the judge's files) is a loud error, not a silent change of grades.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..kernels import kernel_side

GRADING = Path(__file__).resolve().parent.parent
CHECKS = GRADING.parent / "checks"
RUNNERS = CHECKS / "run"  # the kernel side of the checks
# the runner's to_device, shipped with the runners so that the kernel runs its private copy
DEVICE = GRADING.parent / "device.py"
BLOCKS = GRADING.parent / "blocks"  # the course's reference versions (kernel_side spots calls)


def _read_sources() -> dict[str, tuple[str, str]]:
    """Every module of the kernel side of the checks, and ``device`` (sent to kernels whole):
    {stem: (path, text)}."""
    paths = [p for p in sorted(RUNNERS.glob("*.py")) if p.stem != "__init__"] + [DEVICE]
    return {path.stem: (str(path), path.read_text(encoding="utf-8")) for path in paths}


CHECK_SOURCES = _read_sources()
KERNEL_SIDE_SOURCE = Path(kernel_side.__file__).read_text(encoding="utf-8")


def _judge_files() -> list[Path]:
    """The files whose code decides grades: the check package and the grader itself."""
    return sorted([*CHECKS.rglob("*.py"), *GRADING.rglob("*.py"), DEVICE])


def _digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "unreadable"


JUDGE_DIGESTS = {str(p): _digest(p) for p in _judge_files()}


def changed_sources() -> list[str]:
    """The judge's files that are not byte-identical to what this process loaded at start."""
    now = {str(p): _digest(p) for p in _judge_files()}
    return sorted(p for p in set(now) | set(JUDGE_DIGESTS) if now.get(p) != JUDGE_DIGESTS.get(p))
