"""Faults injected at named points of a grading, for the tests only (never set it otherwise).

``COURSE_GRADER_FAULTS`` lists faults as ``POINT=ACTION[@SECONDS]``, separated by commas::

    COURSE_GRADER_FAULTS="cell:1=interrupt@0.3,probe:00.relu=kill"

A point is where the grader runs code in the kernel: ``cell:N`` (the notebook's cell N,
counted as in the rows' messages), ``release`` and ``setup`` (the two cells that load the
grader's own code into a kernel), ``probe:ID`` (exercise ID called on the grader's inputs) and
``results:ID`` (the results file of exercise ID, once the kernel has written it). Actions:

- ``interrupt``: the code's time limit is ``SECONDS`` (default 0.2) instead of its own, so the
  grader interrupts it then (and kills the kernel if the interrupt does not stop it), wherever
  the code is: inside ``import torch``, the grader's setup, the learner's function;
- ``kill``: the kernel is killed ``SECONDS`` after the code was sent (or when it ends, if
  sooner);
- ``truncate`` (``results:ID`` only): the results file is cut to half its size, as a kill
  while it was written leaves it.

Each fault strikes once per submission (the first time its point is reached), so the grader's
recovery (a fresh kernel that re-runs the cells) runs without it.
"""

from __future__ import annotations

import os
from pathlib import Path

VARIABLE = "COURSE_GRADER_FAULTS"
ACTIONS = ("interrupt", "kill", "truncate")


def planned() -> dict[str, tuple[str, float]]:
    """{point: (action, seconds)} from the environment ({} when unset, as in every real run)."""
    faults = {}
    for item in filter(None, (s.strip() for s in os.environ.get(VARIABLE, "").split(","))):
        point, _, spec = item.partition("=")
        action, _, seconds = spec.partition("@")
        if action not in ACTIONS:
            raise ValueError(f"{VARIABLE}: unknown action {action!r} in {item!r}")
        faults[point.strip()] = (action, float(seconds or 0.2))
    return faults


class Injector:
    """The faults of one submission; each is taken (and so strikes) once."""

    def __init__(self):
        self.left = planned()

    def take(self, point: str) -> tuple[str, float] | None:
        return self.left.pop(point, None)

    def run(self, kernel, point: str, code: str, timeout: float):
        """``kernel.run(code, timeout)``, with the fault planned at ``point`` if any."""
        fault = self.take(point) if self.left else None
        if fault is None:
            return kernel.run(code, timeout)
        action, seconds = fault
        if action == "kill":  # the limit's interrupt becomes a kill
            kernel.interrupt = kernel.kill
        try:
            run = kernel.run(code, seconds)
        finally:
            kernel.__dict__.pop("interrupt", None)
        if action == "kill" and run.status != "died":  # it ended first: the kill comes after
            from .kernel import CellRun

            kernel.kill()
            run = CellRun("died", seconds=run.seconds, alive=False)
        return run

    def written(self, point: str, path: Path) -> None:
        """After the kernel wrote ``path``: cut it in half if a fault is planned at ``point``."""
        fault = self.take(point) if self.left else None
        if fault is not None and fault[0] == "truncate" and path.exists():
            data = path.read_bytes()
            path.write_bytes(data[: len(data) // 2])
