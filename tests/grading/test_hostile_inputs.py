"""Everything a submission hands the grader is hostile input; nothing reaches the next one.

One batch with the default options (sandbox, ``--jobs 2``), honest notebooks among:

- odd metadata (``course.notebook = "²"``: ``isdigit()`` true, ``int()`` raises);
- a work folder 1,100 levels deep, with modes that stop a walk;
- results files forged by patching ``torch.save`` in the kernel: a deflated tensor record
  that inflates to 1.5 GiB in ``torch.load``, a list shared 100 times at 4 levels;
- a notebook that, during its first exercise, renames the grader's private folder and puts a
  link to a host folder in its place (the grader writes the next exercise's inputs after);
- a file name that is not UTF-8, a link to a solved notebook, an output message of a forged shape;
- keys added to the user, session and persistent keyrings, a POSIX message queue, and the zygote's
  limits and priority changed (a kernel's parent is its zygote), looked for by a
  later submission in the same slot, and by the same kernel (none can be made at all: a seccomp
  filter and RLIMIT_MSGQUEUE 0, attack round 4).

The batch ends with exit 0, every honest classmate gets full marks, every hostile file costs
its own rows only, nothing is written in the host folder, and the batch's processes stay under
1 GB. Then: the readers fuzzed (Hypothesis) on mutated notebooks and results files.
"""

from __future__ import annotations

import base64
import csv
import io
import json
import os
import re
import string
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import nbformat
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers.checks.run.runner import Outcome
from helpers.grading import exercises_of
from helpers.grading.judging.judging import ResultError, load_results
from helpers.grading.kernels import sandbox, scratch
from helpers.grading.reading.isolate import IsolatedError, call_limited
from helpers.grading.reading.submissions import metadata_number, read_notebook
from helpers.grading.records import Submission

from .builders import ROOT, exercise_index, insert, load, set_exercise, write

SANDBOXED = sandbox.resolve("auto")[0] == "bwrap"
BOMB_FLOATS = 3 * 2**27  # 1.5 GiB of float32 zeros, about 1.5 MB deflated
LEAK_RELU = "def relu(x):\n    return x.abs() if LEAK else x * (x > 0)"

KEYS = r"""
import ctypes, os, platform
libc = ctypes.CDLL(None, use_errno=True)
NR = {"x86_64": (248, 250), "aarch64": (217, 219)}[platform.machine()]  # add_key, keyctl
def add_key(desc, ring):
    return libc.syscall(NR[0], b"user", desc, b"secret", ctypes.c_size_t(6), ctypes.c_long(ring))
def search(desc, ring):  # KEYCTL_SEARCH
    return libc.syscall(NR[1], ctypes.c_long(10), ctypes.c_long(ring), b"user", desc,
                        ctypes.c_long(0))
def persistent():  # KEYCTL_GET_PERSISTENT: this user's persistent keyring, linked to @s
    return libc.syscall(NR[1], ctypes.c_long(22), ctypes.c_long(-1), ctypes.c_long(-3))
libc.mq_open.restype = ctypes.c_int
"""
ATTACKS = {
    "deep": r"""
import os
os.makedirs("deep", exist_ok=True)
here = os.getcwd()
os.chdir("deep")
for _ in range(1100):
    os.mkdir("d")
    os.chdir("d")
    open("f", "w").write("x")
os.chmod(".", 0)
os.chdir(here)
os.chmod("deep", 0o500)
LEAK = []""",
    "bomb": r"""
import shutil, torch
_save = torch.save
def _forged(obj, f, *args, **kwargs):
    if isinstance(f, str) and "results-" in f:
        shutil.copyfile("bomb.bin", f)
        return None
    return _save(obj, f, *args, **kwargs)
torch.save = _forged
LEAK = []""",
    "shared": r"""
import torch
_save = torch.save
level = [torch.zeros(3)]
for _ in range(4):
    level = [level] * 100
def _forged(obj, f, *args, **kwargs):
    if isinstance(f, str) and "results-" in f:
        item = {"value": level, "error": None, "missing": False, "off_device": False,
                "input_changed": False, "random_in_eval": False}
        obj = {"status": "ran", "origin": "", "reference": "", "outcomes": [item], "error": ""}
    return _save(obj, f, *args, **kwargs)
torch.save = _forged
LEAK = []""",
    "aa_keys": KEYS
    + r"""
add_key(b"planted_$mark", -4)  # the user keyring
add_key(b"planted_s_$mark", -3)  # the session keyring
add_key(b"planted_p_$mark", persistent())  # the persistent keyring (outlives the session)
libc.mq_open(b"/planted_$mark", os.O_CREAT | os.O_RDWR, 0o600, None)
# the zygote's limits and priority, which the next kernels forked from it would inherit
import resource
resource.prlimit(os.getppid(), resource.RLIMIT_NOFILE, (12, 12))
os.setpriority(os.PRIO_PROCESS, os.getppid(), 19)
LEAK = []""",
    "zz_keys": KEYS
    + r"""
LEAK = []
for name in ("planted", "own"):  # what aa_keys, ab_keys and keys_same left
    rings = ((f"{name}_$mark", -4), (f"{name}_s_$mark", -3), (f"{name}_p_$mark", persistent()))
    for desc, ring in rings:
        if search(desc.encode(), ring) > 0:
            LEAK.append(desc)
    if libc.mq_open(f"/{name}_$mark".encode(), os.O_RDONLY) >= 0:
        LEAK.append(name + " mqueue")""",
    # the same kernel cannot even find what it tried to plant: a kernel makes no key
    # (seccomp) and no POSIX message queue (RLIMIT_MSGQUEUE 0), which count against the
    # grader's user in every sandbox (attack round 4)
    "keys_same": KEYS
    + r"""
add_key(b"own_$mark", -4)
add_key(b"own_s_$mark", -3)
add_key(b"own_p_$mark", persistent())
libc.mq_open(b"/own_$mark", os.O_CREAT | os.O_RDWR, 0o600, None)
found = (search(b"own_$mark", -4), search(b"own_s_$mark", -3), search(b"own_p_$mark", persistent()))
LEAK = [r for r in found if r > 0]
if libc.mq_open(b"/own_$mark", os.O_RDONLY) >= 0:
    LEAK.append("mqueue")""",
}
# an output message whose text is a number (the kernel signs what it sends)
FORGED_STREAM = r"""
kernel = get_ipython().kernel
kernel.session.send(kernel.iopub_socket, "stream", {"name": "stdout", "text": 5},
                    parent=kernel.get_parent())"""
# notebook 02: its first exercise swaps the grader's folder for a link to the host's folder,
# then ends its kernel (the grader starts another one for the next exercise: a new connection
# file, the next exercise's inputs)
ESCAPE = r"""
import glob, os
def scaled_dot_product_attention(q, k, v, mask=None):
    for private in glob.glob(os.path.join(os.getcwd(), ".grader-*")):
        if not os.path.islink(private):
            os.rename(private, private + "-moved")
            os.symlink($target, private)
            os._exit(1)
    scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(-1)
    return weights @ v, weights
"""


def bomb(path: Path) -> None:
    """A results file whose one tensor record is deflated: small on disk, 1.5 GiB loaded."""
    template = io.BytesIO()
    item = {"value": torch.zeros(12345), "error": None, **dict.fromkeys(Outcome.FLAGS, False)}
    torch.save(
        {"status": "ran", "origin": "", "reference": "", "outcomes": [item], "error": ""},
        template,
    )
    big = b"J" + BOMB_FLOATS.to_bytes(4, "little")  # BININT instead of BININT2 12345
    with zipfile.ZipFile(template) as src, zipfile.ZipFile(path, "w") as dst:
        for info in src.infolist():
            if info.filename.endswith("data.pkl"):
                pkl = src.read(info).replace(b"M" + (12345).to_bytes(2, "little"), big)
                dst.writestr(info.filename, pkl)
            elif info.filename.endswith("data/0"):
                record = zipfile.ZipInfo(info.filename, info.date_time)
                record.compress_type = zipfile.ZIP_DEFLATED
                with dst.open(record, "w", force_zip64=True) as f:
                    zeros = bytes(2**24)
                    for _ in range(BOMB_FLOATS * 4 // len(zeros)):
                        f.write(zeros)
            else:
                dst.writestr(info.filename, src.read(info))


class PeakMemory:
    """The largest summed PSS (shared pages divided among their users) of the grading command
    and its processes outside the sandboxes (the grader, its workers, their children): sampled
    every 0.2 s."""

    def __init__(self, pid: int):
        self.pid, self.peak, self.done = pid, 0, False
        threading.Thread(target=self._watch, daemon=True).start()

    def _tree(self) -> list[int]:
        children: dict[int, list[int]] = {}
        for p in (p for p in os.listdir("/proc") if p.isdigit()):
            try:
                ppid = int(Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[1])
                name = Path(f"/proc/{p}/comm").read_text().strip()
            except (OSError, IndexError, ValueError):
                continue
            if name != "bwrap":  # a sandbox's processes are the kernels, limited on their own
                children.setdefault(ppid, []).append(int(p))
        out, todo = [], [self.pid]
        while todo:
            pid = todo.pop()
            out.append(pid)
            todo += children.get(pid, [])
        return out

    def _watch(self):
        while not self.done:
            total = 0
            for pid in self._tree():
                try:
                    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                        if line.startswith("Pss:"):
                            total += int(line.split()[1]) * 1024
                except OSError:
                    pass
            self.peak = max(self.peak, total)
            time.sleep(0.2)


@pytest.mark.slow
@pytest.mark.skipif(not SANDBOXED, reason="bubblewrap is not installed")
def test_a_batch_of_hostile_inputs_grades_every_classmate(tmp_path):
    mark = f"m{os.getpid()}"
    subs, out, target = tmp_path / "subs", tmp_path / "grades.csv", tmp_path / "host_folder"
    target.mkdir()
    honest = ["00_honest.ipynb", "00_honest_2.ipynb", "02_honest.ipynb"]
    write(load("00"), subs / honest[0])
    write(load("00"), subs / "b" / honest[1])
    write(load("02"), subs / honest[2])
    odd = load("00")
    odd.metadata["course"] = {"notebook": "²"}
    write(odd, subs / "00_superscript.ipynb")
    # a name that is not UTF-8, a link to a solved notebook, an output message of a forged shape
    write(load("00"), Path(os.fsdecode(os.fsencode(subs) + b"/00_\xff.ipynb")))
    (subs / "00_link.ipynb").symlink_to(ROOT / "solutions" / "00_welcome.ipynb")
    forged = set_exercise(load("00"), "00.relu", "def relu(x):\n    return x * (x > 0)")
    insert(forged, exercise_index(forged, "00.relu"), FORGED_STREAM)
    write(forged, subs / "00_forged_stream.ipynb")
    for name, cell in [*ATTACKS.items(), ("ab_keys", ATTACKS["aa_keys"])]:
        nb = set_exercise(load("00"), "00.relu", LEAK_RELU)
        insert(nb, exercise_index(nb, "00.relu"), string.Template(cell).substitute(mark=mark))
        write(nb, subs / name / f"00_{name}.ipynb")
    # the bomb travels in the notebook: no file beside it reaches its kernel (COURSE_FILES)
    bomb(tmp_path / "bomb.bin")
    packed = base64.b64encode((tmp_path / "bomb.bin").read_bytes()).decode()
    unpack = f"import base64\nopen('bomb.bin', 'wb').write(base64.b64decode('{packed}'))"
    planted = nbformat.read(str(subs / "bomb" / "00_bomb.ipynb"), as_version=4)
    insert(planted, 1, unpack)
    write(planted, subs / "bomb" / "00_bomb.ipynb")
    bomb(subs / "bomb" / "bomb.bin")  # beside it too: not copied, so not what is used
    escape = string.Template(ESCAPE).substitute(target=repr(str(target)))
    escaping = set_exercise(load("02"), "02.scaled_dot_product_attention", escape)
    write(escaping, subs / "02_esc.ipynb")

    cmd = [sys.executable, "-m", "helpers", "grade", str(subs), "--out", str(out)]
    cmd += ["--jobs", "2", "--timeout", "60", "--no-progress"]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    peak = PeakMemory(proc.pid)
    stdout = proc.communicate(timeout=1500)[0].decode()
    peak.done = True
    seconds = time.monotonic() - start
    print(f"hostile batch: {seconds:.0f} s, grader peak PSS {peak.peak / 2**20:.0f} MiB")
    assert proc.returncode == 0, stdout
    assert "could not remove" not in stdout, stdout
    # the slots whose zygote a planter changed were made anew, not used again
    assert "changed the zygote's RLIMIT_NOFILE" in stdout and "nice" in stdout, stdout
    with open(out, newline="", encoding="utf-8") as f:
        rows = {(r["submission"], r["exercise"]): r for r in csv.DictReader(f)}
    by_label: dict[str, list[dict]] = {}
    for (label, _), r in rows.items():
        by_label.setdefault(label, []).append(r)

    def said(label: str, *fields: str) -> list[tuple]:
        return [(r["exercise"], *(r[f] for f in fields)) for r in by_label[label]]

    def every_00(*values: str, but: dict | None = None) -> list[tuple]:
        """A row per exercise of notebook 00, in the grader's order: ``values``, or ``but``'s."""
        return [(ex.id, *(but or {}).get(ex.id, values)) for ex in exercises_of("00")]

    graded_fully = [*honest, "00_superscript.ipynb", "deep/00_deep.ipynb", "00_\\xff.ipynb"]
    graded_fully.append("00_forged_stream.ipynb")
    assert said("00_link.ipynb", "status", "points") == every_00("error", "0")  # a row each
    assert all("a link" in r["message"] for r in by_label["00_link.ipynb"]), by_label
    for label in [*graded_fully, "zz_keys/00_zz_keys.ipynb"]:
        label = label if label in by_label else f"b/{label}"
        assert [r["status"] for r in by_label[label]] != [], label
        got = said(label, "status", "message")
        assert all(status == "passed" for _, status, _ in got), (label, got)
    for label in ("aa_keys/00_aa_keys.ipynb", "ab_keys/00_ab_keys.ipynb"):
        assert said(label, "status") == every_00("passed"), said(label, "status", "message")
    # the kernel that made them found no key and no queue of its own (its relu answers right)
    label = "keys_same/00_keys_same.ipynb"
    assert said(label, "status") == every_00("passed"), said(label, "status", "message")
    # a forged results file costs the exercise whose results it is: here every one is forged
    for label, why in (("bomb/00_bomb.ipynb", "memory"), ("shared/00_shared.ipynb", "values")):
        assert said(label, "status", "points") == every_00("error", "0"), by_label[label]
        assert all(why in r["message"] for r in by_label[label]), by_label[label]
    assert os.listdir(target) == []  # the grader followed no link to the host's folder
    assert "02_esc.ipynb" in by_label
    assert peak.peak < 2**30, peak.peak


# ------------------------------------------------------------------ the readers, fuzzed


def _mutations(data: bytes):
    return st.lists(
        st.tuples(st.integers(0, max(len(data) - 1, 0)), st.integers(0, 255)), max_size=20
    ).map(lambda edits: _apply(data, edits))


def _apply(data: bytes, edits) -> bytes:
    b = bytearray(data)
    for pos, value in edits:
        b[pos] = value
    return bytes(b)


def _results_bytes() -> bytes:
    f = io.BytesIO()
    item = {"value": (torch.ones(2, 3), [1, "a"]), "error": None}
    item.update(dict.fromkeys(Outcome.FLAGS, False))
    torch.save({"status": "ran", "origin": "", "reference": "", "outcomes": [item]}, f)
    return f.getvalue()


RESULTS = _results_bytes()
NOTEBOOK = (ROOT / "notebooks").glob("00_*.ipynb").__next__().read_bytes()


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=_mutations(RESULTS))
def test_results_reader_fuzzed(tmp_path_factory, data):
    """A mutated results file gives a ResultError or plain data, read in a limited process."""
    path = tmp_path_factory.mktemp("r") / "results.pt"
    path.write_bytes(data)

    def read():
        try:
            loaded = load_results(path)
        except ResultError as exc:
            return ["error", str(exc)]
        return ["ok", loaded["status"]]

    try:
        kind, _ = call_limited(read, memory_bytes=256 * 2**20, seconds=20)
    except IsolatedError:
        kind = "isolated"
    assert kind in ("ok", "error", "isolated")


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=_mutations(NOTEBOOK), meta=st.one_of(st.none(), st.text(max_size=3), st.integers()))
def test_notebook_reader_fuzzed(tmp_path_factory, data, meta):
    """A mutated notebook, or odd metadata, gives a problem or a notebook, never a raise."""
    folder = tmp_path_factory.mktemp("n")
    path = folder / "00_x.ipynb"
    path.write_bytes(data)
    sub = Submission(path, path.name)
    read_notebook(sub)
    assert sub.problem is None or isinstance(sub.problem, str)
    try:
        nb = json.loads(NOTEBOOK)
    except ValueError:
        return
    nb.setdefault("metadata", {})["course"] = {"notebook": meta}
    path.write_text(json.dumps(nb))
    sub = Submission(path, path.name)
    read_notebook(sub)
    assert sub.notebook in (None, "00", metadata_number(meta))


@given(meta=st.one_of(st.text(), st.integers(), st.floats(), st.booleans(), st.none()))
def test_metadata_number_never_raises(meta):
    number = metadata_number(meta)
    assert number is None or re.fullmatch(r"[0-9]{2}[a-z]?", number, flags=re.ASCII)


@pytest.mark.parametrize(
    "meta, number",
    [(7, "07"), ("7", "07"), ("07b", "07b"), ("7b", "07b"), ("07B", None), ("07bb", None),
     ("b07", None), ("0７", None)],
)  # fmt: skip
def test_metadata_number_with_a_letter(meta, number):
    """A notebook between two others: "07b" (notebook_files.NUMBER)."""
    assert metadata_number(meta) == number


def test_clean_up_of_a_deep_tree(tmp_path):
    """1,100 levels, modes 0 and a link to a host file: emptied without recursion or a follow."""
    outside = tmp_path / "outside"
    outside.write_text("keep")
    folder = tmp_path / "slot"
    folder.mkdir()
    fd = os.open(folder, os.O_RDONLY)
    for _ in range(1100):  # by descriptors: the path grows past what a path may hold
        os.mkdir("d", dir_fd=fd)
        inner = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.symlink(outside, "link", dir_fd=fd)
    os.fchmod(fd, 0)
    os.close(fd)
    os.chmod(folder / "d", 0o500)
    assert scratch.empty(folder) == []
    assert outside.read_text() == "keep"


def test_a_forked_judge_does_not_hang_in_the_parents_thread_pool():
    """The grader judges in a forked child: one that entered the parent's OpenMP pool hung until
    its time limit (a carried-forward block's judge, graded without OMP_NUM_THREADS=1)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        x = torch.randn(2000, 2000, dtype=torch.float64)
        torch.exp(x).sum()  # the parent's pool is up
        got = call_limited(lambda: float(torch.exp(x).sum()), memory_bytes=512 << 20, seconds=30)
    finally:
        torch.set_num_threads(threads)
    assert got == pytest.approx(float(torch.exp(x).sum()))
