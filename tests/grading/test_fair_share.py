"""A busy neighbour costs an honest classmate nothing, on one CPU
(helpers/grading/kernels/cgroup.py, batch.py).

The attack: a submission starts 48 busy processes, each in a session of its own, and keeps its
slot while they run. The batch runs in a cgroup of one CPU (as in a container or a Slurm job
with one core). Without a share per slot the honest classmate's cell would get a 49th of the
CPU and run over its limit. The classmate's rows must be the same as when graded alone:

- with the slots' cgroups (equal CPU weight), at the first try: no second grading;
- without them (a host with no cgroup), because a timeout beside a busy neighbour is graded
  again alone before it is recorded.

A property, not a timing: the time limit is 15 s per cell on an idle machine, times how much
slower the one CPU runs when the test starts (tests/speed.py, measured inside the group), so
that load from outside the test slows the limit and the cells alike. The honest cell sleeps 3 s
(the hogs start meanwhile), then needs 3 s of CPU time: about 9 s of a 15-s limit at half the
CPU (the share beside one hog, with cgroups), over 140 s at a 49th (no shares). The hogs hold
their slot for the limit less a second; the honest cell gets out of time only if it finds 3 s
of CPU in what is left of its limit, so the two kernels may start seconds apart (CI once saw
the honest cell, then needing 1.7 s, finish before the hogs were all there).

Skipped, with the reason, where the test cannot make a one-CPU cgroup v1 group (CI's container
can: it is root with writable v1 hierarchies) or bubblewrap cannot sandbox.
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path

import pytest

from helpers.grading.batch import grade_batch
from helpers.grading.kernels import cgroup, sandbox
from helpers.grading.records import Settings

from .. import speed
from .builders import plain_notebook, write

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(  # the host's cgroups, not torch's: CI runs it once, in the main suite
        os.environ.get("CI_ENV_SUITE") == "1", reason="host behaviour: tested in the main suite"
    ),
]

IDLE_LIMIT = 15  # seconds per cell on an idle machine; scaled by the measured slowdown
RELU = "def relu(x):\n    return x * (x > 0)"
# 3 s asleep, then 3 s of CPU: ~6 s alone; ~9 s at half of one CPU; > 140 s at a 49th of it
HONEST_WORK = """
import time
time.sleep(3)
start = time.process_time()
while time.process_time() - start < 3:
    pass
"""
HOG = """
import subprocess, sys
hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
        for _ in range(48)]
"""
SECOND = "Graded a second time"


def _cpu_parent() -> Path | None:
    own = cgroup._own("cpu")
    root = Path(cgroup.ROOT, "cpu")
    if own is None or not root.is_dir():
        return None
    return Path(os.path.normpath(str(root) + own))


@pytest.fixture(scope="module")
def one_cpu():
    """This process (and what it forks) in a cgroup v1 group of one CPU while the test runs;
    cgroup.method() found again inside it, so that the slots' groups are made under it."""
    if sandbox.resolve("auto")[0] != "bwrap":
        pytest.skip("bubblewrap cannot sandbox here")
    parent = _cpu_parent()
    group = parent / f"one-cpu-test-{os.getpid()}" if parent else None
    try:
        group.mkdir()
        (group / "cpu.cfs_period_us").write_text("100000")
        (group / "cpu.cfs_quota_us").write_text("100000")
        (group / "cgroup.procs").write_text(str(os.getpid()))
    except (AttributeError, OSError) as exc:
        pytest.skip(f"no cgroup v1 cpu group of one CPU can be made here ({exc})")
    cgroup.method.cache_clear()
    try:
        yield math.ceil(IDLE_LIMIT * max(speed.SLOWDOWN, speed.measure()))  # the cell limit
    finally:
        cgroup.method.cache_clear()
        (parent / "cgroup.procs").write_text(str(os.getpid()))
        _remove(group, parent)


def _remove(group: Path, parent: Path) -> None:
    """Remove the test's group once what ran in it has ended (a finished worker exits a moment
    after its result arrives): a process still there after 20 s is reported."""
    deadline = time.monotonic() + 20
    while True:
        left = [(group / "cgroup.procs").read_text().split()]
        left += [(g / "cgroup.procs").read_text().split() for g in group.iterdir() if g.is_dir()]
        pids = [p for ps in left for p in ps]
        if not pids:
            for child in (g for g in group.iterdir() if g.is_dir()):
                child.rmdir()
            group.rmdir()
            return
        if time.monotonic() > deadline:
            names = [Path(f"/proc/{p}/cmdline").read_bytes()[:80] for p in pids[:5]]
            for p in pids:
                (parent / "cgroup.procs").write_text(p)
            raise AssertionError(f"processes outlived the batch in its cgroup: {pids} {names}")
        time.sleep(0.2)


def _grade(tmp: Path, notebooks: dict, limit: int) -> tuple[list, dict[str, str]]:
    """The rows of the batch, and each submission's feedback text."""
    subs, fb = tmp / "subs", tmp / "feedback"
    subs.mkdir(parents=True)
    for name, nb in notebooks.items():
        write(nb, subs / name)
    settings = Settings(cell_timeout=limit, total_timeout=4 * limit, seed=5, sandbox="bwrap")
    result = grade_batch(
        [subs], tmp / "grades.csv", feedback=fb, jobs=2, settings=settings,
        progress=False, log=lambda _: None,
    )  # fmt: skip
    return result.rows, {p.name: p.read_text() for p in fb.iterdir()}


def _honest():
    return plain_notebook("import torch", HONEST_WORK, RELU, notebook="00")


@pytest.fixture(scope="module")
def alone(one_cpu, tmp_path_factory) -> list:
    """The honest classmate's rows, graded alone on the one CPU."""
    rows, _ = _grade(tmp_path_factory.mktemp("alone"), {"honest.ipynb": _honest()}, one_cpu)
    return _rows(rows, "honest.ipynb")


def _rows(rows, label):
    return [(r.exercise, r.status, r.points, r.message) for r in rows if r.submission == label]


@pytest.mark.parametrize("shares", ["cgroups", "none"])
def test_an_honest_classmate_is_graded_alike_beside_a_hog(
    tmp_path, one_cpu, alone, monkeypatch, shares
):
    if shares == "cgroups" and "cpu" not in cgroup.method()[1]:
        pytest.skip(f"no cpu cgroup for the slots here: {cgroup.method()}")
    if shares == "none":
        monkeypatch.setattr(cgroup, "method", lambda: ("none", {}, "switched off by the test"))
    hold = f"import time\ntime.sleep({one_cpu - 1})"  # the slot stays busy while the hogs run
    hog = plain_notebook("import torch", HOG, hold, RELU, notebook="00")
    notebooks = {"honest.ipynb": _honest(), "hog.ipynb": hog}
    beside, feedback = _grade(tmp_path, notebooks, one_cpu)
    assert [r[1] for r in alone if r[0] == "00.relu"] == ["passed"], alone
    assert _rows(beside, "honest.ipynb") == alone
    graded_again = SECOND in feedback["honest.md"]
    assert graded_again == (shares == "none"), feedback["honest.md"]
