"""The instructor's guide's promise, held: inside the sandbox a kernel can write only its slot's
folder, its own /dev/shm and its own POSIX message queues (/dev/mqueue).

Not a list of places tried: the submission walks every folder the sandbox shows (but /proc and
/sys), tries to create a file in each and to open each regular file for writing (nothing is
written), and reports the topmost places where it could. Every place found must lie under a
promised one.
"""

from __future__ import annotations

import json
import os
import re
import tempfile

import pytest

from helpers.grading import Settings, Submission, grade_submission
from helpers.grading.batch import grade_batch
from helpers.grading.kernels import sandbox
from helpers.grading.records import UsageError

from .builders import plain_notebook, write

pytestmark = pytest.mark.slow

WALK = r"""
import json, os, stat
found = []
for top, dirs, files in os.walk("/", topdown=True):
    if top in ("/proc", "/sys"):
        dirs[:] = []
        continue
    probe = os.path.join(top, ".writable-probe")
    try:
        os.close(os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        os.unlink(probe)
        found.append(top)
    except OSError:
        pass
    for name in files:
        path = os.path.join(top, name)
        try:
            if stat.S_ISREG(os.lstat(path).st_mode):
                os.close(os.open(path, os.O_WRONLY | os.O_APPEND))  # opened, nothing written
                found.append(path)
        except OSError:
            pass
# the topmost places only (the note that carries them out is short)
tops = [p for p in found if not any(p.startswith(q.rstrip("/") + "/") for q in found if q != p)]
raise RuntimeError("WRITABLE " + json.dumps(tops))
"""


@pytest.mark.skipif(sandbox.resolve("auto")[0] != "bwrap", reason="bubblewrap cannot sandbox here")
def test_a_kernel_writes_only_where_the_readme_says(tmp_path, grade_device):
    relu = "def relu(x):\n    return x * (x > 0)"
    path = write(plain_notebook("import torch", WALK, relu, notebook="00"), tmp_path / "00.ipynb")
    work = tempfile.mkdtemp(prefix="w-")  # short: the kernel's sockets lie below it
    settings = Settings(seed=3, sandbox="bwrap", device=grade_device, workdir=work)
    try:
        graded = grade_submission(Submission(path, "00.ipynb"), settings)
    finally:
        os.rmdir(work)
    (note,) = [n for n in graded.notes if "WRITABLE [" in n]
    found = json.JSONDecoder().raw_decode(note[note.index("WRITABLE [") + 9 :])[0]
    slot = re.compile(rf"{re.escape(os.path.realpath(work))}/grade-[^/]+/slot(/|$)")
    promised = [p for p in found if slot.match(p) or re.match(r"/dev/(shm|mqueue)(/|$)", p)]
    assert found == promised, sorted(set(found) - set(promised))
    assert any(slot.match(p) for p in found), found  # the walk saw its own folder


def test_a_working_folder_too_long_for_the_sockets_is_refused(tmp_path):
    """Sandboxed kernels talk over unix sockets in their folder: a path too long for one is
    refused at the start, in words, not met as a crash in every submission."""
    if sandbox.resolve("auto")[0] != "bwrap":
        pytest.skip("bubblewrap cannot sandbox here")
    deep = tmp_path / ("d" * 60)
    deep.mkdir()
    path = write(plain_notebook("x = 1", notebook="00"), tmp_path / "00.ipynb")
    settings = Settings(sandbox="bwrap", workdir=str(deep))
    with pytest.raises(UsageError, match="unix sockets"):
        grade_submission(Submission(path, "00.ipynb"), settings)
    with pytest.raises(UsageError, match="unix sockets"):
        grade_batch([path], tmp_path / "grades.csv", settings=settings, progress=False)
