"""The cap on a sandbox's tasks (helpers/grading/kernels/cgroup.py): a fork loop stops at it.

Skipped, with the reason, where the host gives the grader no cgroup for it (the instructor's
guide says where); in CI's container the cgroup v1 pids hierarchy is writable.
"""

from __future__ import annotations

import os
from dataclasses import replace

import pytest

from helpers.checks import REGISTRY
from helpers.grading import Settings, Submission, exercises_of, grade_submission, make_probes
from helpers.grading.kernels import cgroup, sandbox
from helpers.grading.reading.submissions import target_name

from .builders import plain_notebook, write

pytestmark = pytest.mark.slow

KIND, PARENTS, WHY = cgroup.method()
NO_CAP = KIND == "none" or (KIND in ("v1", "v2") and "pids" not in PARENTS)
CAP = 48  # small: the loop below stays light where the cap fails
FORKS = 300  # what the loop tries: far beyond CAP

FORK_LOOP = f"""
import os, time
children, refused = [], None
while len(children) < {FORKS}:
    try:
        pid = os.fork()
    except OSError as exc:  # EAGAIN: the cgroup's pids.max
        refused = exc
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    children.append(pid)
for pid in children:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
assert refused is not None, f"{{len(children)}} forks, none refused"
"""

RELU_PASSED = ("00.relu", "passed", f"passed {len(make_probes(REGISTRY['00.relu'], 3))} cases")


def missing(ex) -> tuple:
    what = "class" if ex.kind == "module" else "function"
    why = f"is not defined in the notebook (is its exercise cell deleted, or the {what} renamed?)."
    return (ex.id, "missing", f"`{target_name(ex)}` {why}")


def rows(relu: tuple) -> list[tuple]:
    """The rows (exercise, status, message) of notebook 00's exercises, in the grader's order:
    ``relu``'s as given, every other one missing (the notebooks below hold relu only)."""
    return [relu if ex.id == "00.relu" else missing(ex) for ex in exercises_of("00")]


@pytest.mark.skipif(sandbox.resolve("auto")[0] != "bwrap", reason="bubblewrap cannot sandbox here")
@pytest.mark.skipif(NO_CAP, reason=f"no pids cgroup for the tasks cap here: {KIND} {WHY}")
def test_a_fork_loop_stops_at_the_sandboxs_cap(tmp_path, monkeypatch, grade_device):
    monkeypatch.setattr(cgroup, "TASKS_MAX", CAP)
    relu = "def relu(x):\n    return x * (x > 0)"
    path = write(
        plain_notebook("import torch", FORK_LOOP, relu, notebook="00"), tmp_path / "00.ipynb"
    )
    settings = Settings(cell_timeout=60, seed=3, sandbox="bwrap", device=grade_device)
    graded = grade_submission(Submission(path, "00.ipynb"), settings)
    assert [(r.exercise, r.status, r.message) for r in graded.rows] == rows(RELU_PASSED)
    assert not any("raised" in n for n in graded.notes), graded.notes  # the loop was refused
    assert not cgroup._groups  # its cgroup is removed with the submission's folder


def test_the_prefix_joins_a_cgroup_of_its_own(monkeypatch, tmp_path):
    """One group per controller found (v1) or one for all (v2): tasks capped, CPU weighed like
    every other slot, the slot's memory capped at twice one kernel's limit."""
    kind, parents, _ = cgroup.method()
    if kind in ("v1", "v2"):
        prefix = cgroup.limit(["bwrap", "--"], str(tmp_path), memory_bytes=3 * 2**30)
        groups = prefix[4 : prefix.index("--")]
        assert prefix[:4] == ["/bin/sh", "-c", cgroup.JOIN, "sh"]
        assert prefix[prefix.index("--") :] == ["--", "bwrap", "--"]
        assert len(groups) == len(set(parents.values()))
        files = cgroup.V2 if kind == "v2" else cgroup.V1
        expected = {"pids": str(cgroup.TASKS_MAX), "cpu": "100" if kind == "v2" else "1024"}
        expected["memory"] = str(6 * 2**30)
        for controller, parent in parents.items():
            (group,) = [g for g in groups if os.path.dirname(g) == parent]
            with open(os.path.join(group, files[controller])) as f:
                assert f.read().strip() == expected[controller], controller
        cgroup.release(str(tmp_path))
        assert not cgroup._groups and not any(os.path.exists(g) for g in groups)
    assert cgroup.limit(None, str(tmp_path)) is None  # unconfined: left alone


# five children of 400 MiB each, every one within the kernel's own limit: 2 GiB together, over
# the slot's 1.5 GiB (slot_memory). ``relu`` is right only where the slot's cap ended some of
# them: the row says what happened inside. Each child offers itself to the OOM killer first
# (oom_score_adj 1000, which any process may raise): otherwise the killer takes the largest, and a
# CUDA build of torch makes the kernel larger than a child (CI's .venv-default: the kernel died).
MEMORY_HOGS = """
import subprocess, sys, time
hog = (
    "open('/proc/self/oom_score_adj', 'w').write('1000'); "
    "x = b'1' * (400 << 20); import time; time.sleep(60)"
)
hogs = [subprocess.Popen([sys.executable, "-c", hog]) for _ in range(5)]
time.sleep(8)
ended = sum(p.poll() is not None for p in hogs)
for p in hogs:
    p.kill()
"""


@pytest.mark.skipif(sandbox.resolve("auto")[0] != "bwrap", reason="bubblewrap cannot sandbox here")
@pytest.mark.skipif("memory" not in PARENTS, reason=f"no memory cgroup here: {KIND} {WHY}")
def test_a_slots_processes_share_one_memory_cap(tmp_path, monkeypatch, grade_device):
    monkeypatch.setattr(cgroup, "slot_memory", lambda memory_bytes: 3 * 2**29)  # 1.5 GiB
    relu = "def relu(x):\n    return x * (x > 0) if ended else x"
    path = write(
        plain_notebook("import torch", MEMORY_HOGS, relu, notebook="00"), tmp_path / "00.ipynb"
    )
    settings = Settings(cell_timeout=60, seed=3, sandbox="bwrap")  # default --memory
    graded = grade_submission(Submission(path, "00.ipynb"), replace(settings, device=grade_device))
    expected = [row[:2] for row in rows(RELU_PASSED)]  # relu passed
    assert [(r.exercise, r.status) for r in graded.rows] == expected, graded
