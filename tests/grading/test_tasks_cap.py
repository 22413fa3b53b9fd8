"""The cap on a sandbox's tasks (helpers/grading/cgroup.py): a fork loop stops at it.

Skipped, with the reason, where the host gives the grader no cgroup for it (the README says
where); in CI's container the cgroup v1 pids hierarchy is writable.
"""

from __future__ import annotations

import pytest

from helpers.grading import cgroup, sandbox
from helpers.grading.grader import Settings, Submission, grade_submission, make_probes

from .builders import plain_notebook, write

pytestmark = pytest.mark.slow

KIND, _, WHY = cgroup.method()
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


@pytest.mark.skipif(sandbox.resolve("auto")[0] != "bwrap", reason="bubblewrap cannot sandbox here")
@pytest.mark.skipif(KIND == "none", reason=f"no cgroup for the tasks cap here: {WHY}")
def test_a_fork_loop_stops_at_the_sandboxs_cap(tmp_path, monkeypatch, grade_device):
    monkeypatch.setattr(cgroup, "TASKS_MAX", CAP)
    relu = "def relu(x):\n    return x * (x > 0)"
    path = write(
        plain_notebook("import torch", FORK_LOOP, relu, notebook="00"), tmp_path / "00.ipynb"
    )
    settings = Settings(cell_timeout=60, seed=3, sandbox="bwrap", device=grade_device)
    graded = grade_submission(Submission(path, "00.ipynb"), settings)
    from helpers.checks import REGISTRY

    cases = len(make_probes(REGISTRY["00.relu"], 3))
    assert [(r.exercise, r.status, r.message) for r in graded.rows] == [
        ("00.relu", "passed", f"passed {cases} cases")
    ]
    assert not any("raised" in n for n in graded.notes), graded.notes  # the loop was refused
    assert not cgroup._groups  # its cgroup is removed with the submission's folder


def test_the_prefix_joins_a_cgroup_of_its_own(monkeypatch, tmp_path):
    if KIND in ("v1", "v2"):
        prefix = cgroup.limit(["bwrap", "--"], str(tmp_path))
        assert prefix[:3] == ["/bin/sh", "-c", cgroup.JOIN] and prefix[4:] == ["bwrap", "--"]
        with open(f"{prefix[3]}/pids.max") as f:
            assert f.read().strip() == str(cgroup.TASKS_MAX)
        cgroup.release(str(tmp_path))
        assert not cgroup._groups
    assert cgroup.limit(None, str(tmp_path)) is None  # unconfined: left alone
