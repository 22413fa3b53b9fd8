"""Hostile submissions against the default grader (sandbox on, ``--jobs 2``): one batch.

One submission per attack class of issue 10: forging the gradebook from a detached process,
poisoning the judge's and torch's files, writing into the grader's pipes, hijacking a
classmate's kernel, peeking at other files, the network, the grader's /proc, writing to
``$HOME`` and the repository, 200 sleeping children, a cell ignoring SIGTERM, a wrapper around
the reference; honest submissions in the same batch. A leak makes the attacker's ``relu``
wrong (``|x|``), so every attack that works changes an exact row. After the batch: nothing
with the batch's mark still runs, no file with it exists outside the work folders, the judge's
and torch's files are unchanged. ``test_attacks_work_without_the_sandbox`` shows that the
spying attacks do find what they look for when the grader runs unconfined.
"""

from __future__ import annotations

import csv
import hashlib
import os
import socket
import string
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
import torch

import helpers
from helpers.checks import REGISTRY
from helpers.grading import exercises_of, make_probes
from helpers.grading.kernels import sandbox

from ..speed import scaled
from .builders import ROOT, exercise_index, insert, load, set_exercise, write

SANDBOXED = sandbox.resolve("auto")[0] == "bwrap"
if not SANDBOXED and os.environ.get("SANDBOX_REQUIRED") == "1":  # CI: an error, not a skip
    raise RuntimeError(
        "SANDBOX_REQUIRED=1 but bubblewrap cannot sandbox here: " + sandbox.resolve("auto")[1]
    )
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not SANDBOXED, reason="bubblewrap is not installed (apt-get install bubblewrap)"
    ),
]

MARK = f"attack{uuid.uuid4().hex[:10]}"
SEED = 424242
WRONG = (
    "00.relu",
    "0",
    "1",
    "failed",
    "00.relu/abs",
    "case x = [-2, -0.5, 0, 1.5]: you returned |x|: negative inputs must become 0, not positive.",
)
JUDGE_FILES = [
    Path(helpers.__file__).parent / "checks" / "exercises" / "00" / "relu.py",
    Path(torch.__file__).parent / "version.py",
]


def passed(ex_id: str) -> tuple:
    ex = REGISTRY[ex_id]
    return (
        ex_id,
        f"{ex.points:g}",
        f"{ex.points:g}",
        "passed",
        "",
        getattr(ex, "explanation", "") or f"passed {len(make_probes(ex, SEED))} cases",
    )  # a question says why its answer is right


def rows(number: str, *changed: tuple) -> list[tuple]:
    """The rows of every exercise of notebook ``number``, in the grader's order: a row of
    ``changed`` where it names the exercise, else passed (the submissions are the solved
    notebooks, the exercise attacked or changed aside). The rows follow the notebook's exercises
    as they grow."""
    by_id = {row[0]: row for row in changed}
    return [by_id.get(ex.id) or passed(ex.id) for ex in exercises_of(number)]


# each attack cell sets LEAK to what it got; the exercise cell then answers wrong if it got anything
RELU = "def relu(x):\n    return x.abs() if LEAK else x * (x > 0)"


# what an attacker is assumed to know is filled in with string.Template ($name: a Python literal)
ATTACKS = {
    "forge": r"""
import subprocess, sys
code = '''
import time  # $mark
for _ in range(240):
    try:
        with open($gradebook, "a") as f:
            f.write("00_forge.ipynb,00,00.relu,1,1,passed,,forged\\n")
    except OSError:
        pass
    time.sleep(0.5)
'''
subprocess.Popen([sys.executable, "-c", code], start_new_session=True,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
LEAK = []""",
    "poison": r"""
import os, subprocess
LEAK = []
for path in $judge_files:  # remount its folder writable first, if we can
    subprocess.run(["mount", "-o", "remount,bind,rw", os.path.dirname(path)], capture_output=True)
    try:
        with open(path, "a") as f:
            f.write("\n# $mark\n")
        LEAK.append(path)
    except OSError:
        pass""",
    "pipe": r"""
import os, pickle, struct

class Payload:
    def __reduce__(self):
        return (os.system, ("touch " + $pwned,))

data = pickle.dumps(Payload())
LEAK = []
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    try:  # the grader and its workers: their command line names the gradebook
        if $gradebook.encode() not in open(f"/proc/{pid}/cmdline", "rb").read():
            continue
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        continue
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("pipe:"):
                w = os.open(f"/proc/{pid}/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK)
                os.write(w, struct.pack("!i", len(data)) + data)
                os.close(w)
                LEAK.append((pid, fd))
        except OSError:
            pass""",
    "classmate": r"""
import glob, os, time
from jupyter_client import BlockingKernelClient
LEAK = []
deadline = time.time() + 3
while time.time() < deadline and not LEAK:
    for cf in glob.glob("/tmp/grade-*/**/kernel-*.json", recursive=True):
        if cf.startswith(os.getcwd()):
            continue  # our own kernel
        try:
            kc = BlockingKernelClient(connection_file=cf)
            kc.load_connection_file()
            kc.start_channels()
            kc.execute("def relu(x):\n    return x.abs()")
            LEAK.append(cf)
        except Exception:
            pass
    time.sleep(0.2)""",
    "peek": r"""
import os
LEAK = []
for path in [$classmate, $gradebook]:
    try:
        LEAK.append(open(path, "rb").read(10))
    except OSError:
        pass
try:
    LEAK += os.listdir($feedback)
except OSError:
    pass""",
    "network": r"""
import socket
LEAK = []
try:
    socket.create_connection(("127.0.0.1", $port), timeout=2).close()
    LEAK.append("connected")
except OSError:
    pass""",
    "proc": r"""
import os
secret = [str($seed_before + 1), $mark_head + $mark_tail]  # not in this cell's own text
LEAK = []
for pid in [p for p in os.listdir("/proc") if p.isdigit()] + [str(os.getppid())]:
    for what in ("cmdline", "environ"):
        try:
            text = open(f"/proc/{pid}/{what}", "rb").read().decode(errors="replace")
        except OSError:
            continue
        LEAK += [(pid, what) for s in secret if s in text]""",
    "writes": r"""
LEAK = []
for path in [$home_file, $repo_file]:
    try:
        open(path, "w").write("x")
        LEAK.append(path)
    except OSError:
        pass""",
    "spawn": r"""
import subprocess
children = [subprocess.Popen(["/bin/sh", "-c", "sleep 300; echo $mark"], start_new_session=True)
            for _ in range(200)]
LEAK = []""",
    # leftovers for the next submission in the slot: graded first ("aa") and last ("zz"), so with
    # 2 jobs the collector runs in a sandbox a planter used before it
    "aa_plant": r"""
import ctypes, os
libc = ctypes.CDLL(None)
libc.shmget(0x4D41524B, 4096, 0o1666)  # IPC_CREAT | 0o666: objects that outlive this process
libc.msgget(0x4D41524B, 0o1666)
open("/dev/shm/planted_$mark", "w").write("x")
open(os.path.expanduser("~/planted_$mark"), "w").write("x")
LEAK = []""",
    # modes that stop the removal of its folder by a grader that is not root (graded early: the
    # honest submissions after it in the slot must not pay for it)
    "ac_lock": r"""
import os
os.makedirs("locked/inner", exist_ok=True)
for path in ("locked/f", "locked/inner/f"):
    open(path, "w").write("x")
for path in ("locked/f", "locked/inner/f", "locked/inner", "locked"):
    os.chmod(path, 0)
os.chmod(".", 0o500)
os.chmod("..", 0o500)
LEAK = []""",
    "zz_collect": r"""
import glob, os
LEAK = [line for kind in ("shm", "msg", "sem")
        for line in open(f"/proc/sysvipc/{kind}").read().splitlines()[1:]]
LEAK += glob.glob("/dev/shm/planted_*") + glob.glob(os.path.expanduser("~/planted_*"))""",
    "sigterm": r"""
import signal
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
LEAK = []""",
}


def attacks(ctx: dict) -> dict[str, str]:
    """{name: the attack cell}; ``ctx``: what an attacker is assumed to know (host paths, port)."""
    known = {
        **{k: repr(v) for k, v in ctx.items()},
        "mark": MARK,
        "mark_head": repr(MARK[:6]),
        "mark_tail": repr(MARK[6:]),
        "seed_before": str(SEED - 1),
        "judge_files": repr([str(p) for p in JUDGE_FILES]),
        "home_file": repr(str(Path.home() / f"escape_home_{MARK}")),
        "repo_file": repr(str(ROOT / f"escape_repo_{MARK}")),
    }
    return {name: string.Template(cell).substitute(known) for name, cell in ATTACKS.items()}


def attacked(name: str, cell: str):
    nb = set_exercise(load("00"), "00.relu", RELU)
    insert(nb, exercise_index(nb, "00.relu"), cell)
    return nb


def build(folder: Path, ctx: dict) -> dict[str, list[tuple]]:
    expected = {}
    write(load("00"), folder / "00_honest.ipynb")
    expected["00_honest.ipynb"] = rows("00")
    write(load("02"), folder / "02_honest.ipynb")
    expected["02_honest.ipynb"] = rows("02")
    for name, cell in attacks(ctx).items():
        write(attacked(name, cell), folder / f"00_{name}.ipynb")
        expected[f"00_{name}.ipynb"] = rows("00")
    write(attacked("ab_plant", attacks(ctx)["aa_plant"]), folder / "00_ab_plant.ipynb")
    expected["00_ab_plant.ipynb"] = rows("00")  # the second slot's planter
    wrapper = (
        "from helpers.blocks.attention import scaled_dot_product_attention as r\n\n"
        "def scaled_dot_product_attention(q, k, v, mask=None):\n    return r(q, k, v, mask)"
    )
    write(
        set_exercise(load("02"), "02.scaled_dot_product_attention", wrapper),
        folder / "02_wrapper.ipynb",
    )
    cell = exercise_index(load("02"), "02.scaled_dot_product_attention") + 1
    expected["02_wrapper.ipynb"] = rows(  # the reference is not there to wrap (kernel_view.py)
        "02",
        (
            "02.scaled_dot_product_attention",
            "0",
            "3",
            "error",
            "",
            f"`scaled_dot_product_attention` is not defined: its cell (cell {cell}) raised "
            "ModuleNotFoundError: No module named 'helpers.blocks.attention'",
        ),
    )
    return expected


class Listener:
    """A TCP server on the host's 127.0.0.1 that counts connections."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(5)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()


def marked_processes() -> list[str]:
    found = []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if MARK.encode() in cmdline and int(pid) != os.getpid():
            found.append(pid)
    return found


def marked_files(*folders: Path) -> list[str]:
    found = []
    for folder in folders:
        for p in folder.glob("*"):
            if MARK in p.name:
                found.append(str(p))
    return found


def digests() -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in JUDGE_FILES}


def grade(folder: Path, out: Path, *extra: str) -> tuple[int, list[list[str]], str]:
    """The grading command as an instructor runs it: a process of its own, the seed in its
    command line, a secret in its environment (neither may reach a kernel)."""
    cmd = [
        sys.executable,
        "-m",
        "helpers",
        "grade",
        str(folder),
        "--out",
        str(out),
        "--feedback",
        str(out.parent / "feedback"),
        "--jobs",
        "2",
        "--timeout",
        str(scaled(30)),
        "--seed",
        str(SEED),
        "--no-progress",
        *extra,
    ]
    done = subprocess.run(
        cmd,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env=dict(os.environ, GRADER_TEST_SECRET=MARK),
    )
    with open(out, newline="", encoding="utf-8") as f:
        return done.returncode, list(csv.reader(f)), done.stdout + done.stderr


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    root = tmp_path_factory.mktemp("attacks")
    subs, out, listener = root / "submissions", root / "grades.csv", Listener()
    ctx = {
        "gradebook": str(out),
        "feedback": str(root / "feedback"),
        "port": listener.port,
        "classmate": str(subs / "00_honest.ipynb"),
        "pwned": str(root / f"pwned_{MARK}"),
    }
    expected = build(subs, ctx)
    before = digests()
    code, graded, stdout = grade(subs, out)
    time.sleep(1.5)  # a forger that outlived the grader would have written by now
    with open(out, newline="", encoding="utf-8") as f:
        rows_later = list(csv.reader(f))
    return {
        "code": code,
        "rows": graded,
        "rows_later": rows_later,
        "expected": expected,
        "stdout": stdout,
        "listener": listener,
        "root": root,
        "before": before,
    }


def rows_of(rows, label):
    return [tuple(r[2:]) for r in rows[1:] if r[0] == label]


@pytest.mark.parametrize(
    "label",
    [
        "00_honest.ipynb",
        "02_honest.ipynb",
        "02_wrapper.ipynb",
        *(f"00_{name}.ipynb" for name in ATTACKS),
        "00_ab_plant.ipynb",
    ],
)
def test_rows(batch, label):
    assert rows_of(batch["rows"], label) == batch["expected"][label]


def test_every_submission_graded_in_the_sandbox(batch):
    assert batch["code"] == 0
    assert {r[0] for r in batch["rows"][1:]} == set(batch["expected"])
    assert "sandbox: bubblewrap" in batch["stdout"] and "UNCONFINED" not in batch["stdout"]
    assert "restarted" not in batch["stdout"]  # every slot's sandbox was reset, none made again
    notes = "".join(
        p.read_text(encoding="utf-8") for p in (batch["root"] / "feedback").glob("*.md")
    )
    assert "(grader)" not in notes  # every kernel was forked from its slot's zygote


def test_nothing_outlives_the_grading_or_rewrites_the_gradebook(batch):
    assert marked_processes() == []
    assert batch["rows_later"] == batch["rows"]


def test_nothing_written_outside_the_work_folders(batch):
    assert marked_files(Path.home(), ROOT, Path("/tmp"), batch["root"]) == []
    assert digests() == batch["before"]
    assert batch["listener"].connections == 0


def test_attacks_work_without_the_sandbox(tmp_path):
    """The control: unconfined, the spying attacks find the classmate, the port and the seed."""
    listener = Listener()
    subs, out = tmp_path / "submissions", tmp_path / "grades.csv"
    ctx = {
        "gradebook": str(out),
        "feedback": str(tmp_path / "feedback"),
        "port": listener.port,
        "classmate": str(subs / "00_honest.ipynb"),
        "pwned": "",
    }
    cells = attacks(ctx)
    for name in ("peek", "network", "proc"):
        write(attacked(name, cells[name]), subs / f"00_{name}.ipynb")
    write(load("00"), subs / "00_honest.ipynb")
    code, graded, stdout = grade(subs, out, "--sandbox", "none")
    assert code == 0 and "UNCONFINED" in stdout
    assert {label: rows_of(graded, label) for label in {r[0] for r in graded[1:]}} == {
        "00_honest.ipynb": rows("00"),
        "00_peek.ipynb": rows("00", WRONG),
        "00_network.ipynb": rows("00", WRONG),
        "00_proc.ipynb": rows("00", WRONG),
    }
    assert listener.connections == 1
