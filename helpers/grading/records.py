"""The grader's plain records: settings, submissions, gradebook rows, results of a batch
(the gradebook's columns and CSV: ``gradebook.py``; the worker's channel: ``pipe.py``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

from .limits import FILE_BYTES, OUTPUT_CHARS, default


class UsageError(ValueError):
    """Bad arguments: the message is shown and the command exits with status 2."""


@dataclass
class Settings:
    # the limits: their numbers, units and meaning are in limits.py
    cell_timeout: float = default("cell_timeout")
    total_timeout: float = default("total_timeout")
    memory_bytes: int = default("memory_bytes")  # per kernel process; 0 = no limit
    file_bytes: int = FILE_BYTES  # largest file a kernel may write; 0 = no limit
    output_cap: int = OUTPUT_CHARS  # characters of output captured per submission
    threads: int = 1
    seed: int = 0
    device: str = "cpu"
    workdir: str | None = None  # where the temporary folders go (default: the system's)
    preload: bool = True  # fork kernels from a process with torch & co. imported (Linux)
    sandbox: str = "auto"  # auto | bwrap | none (sandbox.py)
    hidden: list[str] = field(default_factory=list)  # paths a sandbox must not show (the inputs)
    student_pattern: str | None = None  # --student-pattern: whose files lie side by side (lms.py)
    carry_forward: bool = True  # --no-carry-forward: a faulty part graded on its own costs twice


@dataclass
class Row:
    submission: str
    notebook: str
    exercise: str
    points: float
    max_points: float
    status: str
    message: str
    mistake: str = ""  # "<exercise id>/<slug>" when the check names the mistake


@dataclass
class Submission:
    path: Path
    label: str
    notebook: str | None = None
    problem: str | None = None  # why it cannot be run, when it cannot
    notes: list[str] = field(default_factory=list)


@dataclass
class Graded:
    rows: list[Row]
    notes: list[str] = field(default_factory=list)  # for the feedback file
    messages: dict[str, str] = field(default_factory=dict)  # exercise -> full message
    seconds: float = 0.0
    notebook_seconds: float = 0.0

    def to_plain(self) -> dict:
        """Plain data for the worker's channel (JSON: nothing that arrives is unpickled)."""
        return asdict(self)

    @classmethod
    def from_plain(cls, data: dict) -> Graded:
        rows = [Row(**{k: _typed(k, v) for k, v in r.items()}) for r in data["rows"]]
        return cls(
            rows=rows,
            notes=[str(n) for n in data["notes"]],
            messages={str(k): str(v) for k, v in data["messages"].items()},
            seconds=float(data["seconds"]),
            notebook_seconds=float(data["notebook_seconds"]),
        )


def _typed(key: str, value):
    return float(value) if key in ("points", "max_points") else str(value)


@dataclass
class BatchResult:
    rows: list[Row]
    submissions: int
    graded_now: int
    seconds: float
    worker_seconds: list[float] = field(default_factory=list)  # per submission graded now
    notebook_seconds: list[float] = field(default_factory=list)  # executing the learner's cells
    sandbox: str = "none"  # what confined the kernels: "bwrap" or "none"
    warnings: list[str] = field(default_factory=list)  # for the summary (unconfined, tampering)
    tampered: list[str] = field(default_factory=list)  # judge sources changed during the run
