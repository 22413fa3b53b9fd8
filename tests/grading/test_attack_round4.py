"""Attack round 4 (issue 42), the kernel's side: one batch, graded as the README says
(sandbox, ``--jobs 2``), where no cgroup helps (switched off) and the grader's temporary folders
lie on a small tmpfs (50,000 inodes, as a small ``/tmp``). Beside honest classmates, one
submission each:

- fills its folder with small files until the file system says no (``inodes``);
- makes a user namespace inside the sandbox, and UTS namespaces in it (``namespaces``): each
  counts against the grader's user in every ancestor, until no sandbox of that user can start;
- makes keys, inotify instances and POSIX message queues, each counted per user across
  namespaces (``objects``);
- reads the grader's environment (``environ``: the host's ``PATH``, ``PYTHONPATH``...);
- holds 6 GiB of shared anonymous memory (``mmap(MAP_SHARED | MAP_ANONYMOUS)``, not counted by
  ``RLIMIT_DATA``) with ``--memory 1`` (``shmem``).

The honest classmates' rows must be those they get graded alone; each hostile submission's rows
or notes say what it ran out of; the gradebook is written.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from helpers.grading import Settings
from helpers.grading.batch import grade_batch
from helpers.grading.books.gradebook import read_rows
from helpers.grading.kernels import cgroup, sandbox, slot_disk

from .builders import plain_notebook, write

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sandbox.resolve("auto")[0] != "bwrap", reason="bubblewrap cannot sandbox"),
    pytest.mark.skipif(not slot_disk.available(), reason="cannot mount a tmpfs (needs root)"),
]

RELU = "def relu(x):\n    return x * (x > 0)"
HONEST = ("carol", "dave", "erin")
NB = "00.ipynb"

FILL_INODES = """
import os
made = 0
try:
    while True:
        open(f"f{made}", "w").close()
        made += 1
except OSError as exc:
    print("stopped after", made, "files:", exc)
"""

# LEAK: the namespaces made; relu is wrong if any was
NAMESPACES = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER, CLONE_NEWUTS = 0x10000000, 0x04000000
LEAK = []
pid = os.fork()
if pid == 0:  # a child: the kernel itself stays in its namespaces
    made = 0
    if libc.unshare(CLONE_NEWUSER) == 0:
        made += 1
        held = []
        for _ in range(20):  # UTS namespaces kept alive by open descriptors
            if libc.unshare(CLONE_NEWUTS) != 0:
                break
            held.append(os.open("/proc/self/ns/uts", os.O_RDONLY))
            made += 1
    os._exit(min(made, 100))
_, status = os.waitpid(pid, 0)
LEAK = [1] * os.waitstatus_to_exitcode(status)
print("namespaces made:", len(LEAK))
"""
RELU_LEAK = "def relu(x):\n    return x.abs() if LEAK else x * (x > 0)"

# LEAK: the objects counted against the grader's user that the kernel could make
USER_OBJECTS = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
LEAK = [fd for fd in (libc.inotify_init1(0) for _ in range(3)) if fd >= 0]
import platform
ADD_KEY = {"x86_64": 248, "aarch64": 217}.get(platform.machine(), 248)
LEAK += [k for k in [libc.syscall(ADD_KEY, b"user", b"r4", b"x", 1, -4)] if k > 0]  # add_key
LEAK += [q for q in [libc.mq_open(b"/r4", 0o100 | 2, 0o600, None)] if q >= 0]  # O_CREAT|O_RDWR
print("objects made:", LEAK)
"""

# LEAK: what of the grader's own environment the kernel sees (the fixture plants "r4-host")
ENVIRON = """
import os
LEAK = sorted(k for k, v in os.environ.items() if "r4-host" in v)
print("the host's:", LEAK)
"""

SHMEM = """
import mmap
m = mmap.mmap(-1, 6 << 30, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
for i in range(0, 6 << 30, 4096):
    m[i] = 1
"""

# named to be graded before the honest classmates (labels in order)
HOSTILE = {
    "a-inodes": ("import torch", FILL_INODES, RELU),
    "a-namespaces": ("import torch", NAMESPACES, RELU_LEAK),
    "a-shmem": ("import torch", SHMEM, RELU),
    "a-objects": ("import torch", USER_OBJECTS, RELU_LEAK),
    "a-environ": ("import torch", ENVIRON, RELU_LEAK),
}


def _rows(out: Path) -> dict[str, list[tuple]]:
    rows: dict[str, list[tuple]] = {}
    for r in read_rows(out):
        rows.setdefault(r.submission.split("/")[0], []).append(
            (r.exercise, r.points, r.status, r.message)
        )
    return rows


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """(honest rows graded alone, every row of the batch, the feedback folder)."""
    tmp = tmp_path_factory.mktemp("round4")
    small = Path(tempfile.mkdtemp(prefix="r4-", dir="/tmp"))  # short: sockets lie below it
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2g,nr_inodes=50000", "t", small])
    assert done.returncode == 0
    settings = Settings(seed=5, sandbox="bwrap", memory_bytes=2**30, workdir=str(small))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cgroup, "method", lambda: ("none", {}, "switched off by the test"))
        mp.setattr(slot_disk.limits, "SLOT_INODES", 5000)  # fills in seconds
        for name in ("PATH", "PYTHONPATH", "VIRTUAL_ENV", "TERM", "R4_SECRET"):  # the host's
            mp.setenv(name, os.pathsep.join(filter(None, ["/r4-host", os.environ.get(name)])))
        try:
            alone, batch = tmp / "alone", tmp / "batch"
            for name in HONEST:
                for folder in (alone, batch):
                    write(plain_notebook("import torch", RELU, notebook="00"), folder / name / NB)
            grade_batch([alone], tmp / "alone.csv", jobs=2, settings=settings, progress=False)
            for name, cells in HOSTILE.items():
                write(plain_notebook(*cells, notebook="00"), batch / name / NB)
            grade_batch(
                [batch],
                tmp / "batch.csv",
                feedback=tmp / "feedback",
                jobs=2,
                settings=replace(settings),
                progress=False,
            )
        finally:
            subprocess.run(["umount", "-l", small])
            os.rmdir(small)
    return _rows(tmp / "alone.csv"), _rows(tmp / "batch.csv"), tmp / "feedback"


def _feedback(folder: Path, name: str) -> str:
    (path,) = [p for p in folder.iterdir() if p.name.startswith(name)]
    return path.read_text(encoding="utf-8")


def test_honest_classmates_are_graded_as_alone(graded):
    alone, batch, _ = graded
    assert set(alone) == set(HONEST)
    for name in HONEST:
        assert batch[name] == alone[name], name


def test_a_notebook_that_fills_its_inodes_fills_its_own_folder(graded):
    _, batch, feedback = graded
    said = "the notebook filled its folder (its 5,000 files: all one submission may have)"
    assert batch["a-inodes"] and all(r[2] == "error" and said in r[3] for r in batch["a-inodes"])
    assert said in _feedback(feedback, "a-inodes")


def test_a_notebook_makes_no_namespace(graded):
    _, batch, _ = graded
    relu = [r for r in batch["a-namespaces"] if r[0] == "00.relu"]
    assert relu and relu[0][2] == "passed", batch["a-namespaces"]


def test_a_notebook_makes_no_key_inotify_instance_or_message_queue(graded):
    _, batch, _ = graded
    relu = [r for r in batch["a-objects"] if r[0] == "00.relu"]
    assert relu and relu[0][2] == "passed", batch["a-objects"]


def test_the_kernels_environment_holds_nothing_of_the_hosts(graded):
    _, batch, _ = graded
    relu = [r for r in batch["a-environ"] if r[0] == "00.relu"]
    assert relu and relu[0][2] == "passed", batch["a-environ"]


def test_shared_memory_counts_against_the_slot_without_cgroups(graded):
    _, batch, feedback = graded
    text = _feedback(feedback, "a-shmem")
    assert "GiB of memory together (shared memory included)" in text, text
    held = float(text.split("held ")[1].split(" GiB")[0])
    limit = cgroup.slot_memory(2**30) / 2**30
    assert held <= 1.1 * limit, text  # within 10 % of the slot's limit


@pytest.mark.skipif("memory" not in cgroup.method()[1], reason="no memory cgroup here")
def test_shared_memory_counts_against_the_slot_with_cgroups(tmp_path, grade_device):
    """With the slot's memory cgroup (CI's container: cgroup v1), the same 6 GiB of shared
    memory end at the slot's limit, and the rows say it was memory."""
    from helpers.grading import Submission, grade_submission

    path = write(plain_notebook("import torch", SHMEM, RELU, notebook="00"), tmp_path / NB)
    settings = Settings(seed=5, sandbox="bwrap", memory_bytes=2**30, device=grade_device)
    graded = grade_submission(Submission(path, NB), settings)
    said = " ".join(graded.notes)
    assert "memory" in said and "limit of 2.00 GiB" in said, graded.notes
