"""The Gradescope bundle where bubblewrap cannot start: the notebook runs as a separate
unprivileged user, and a detached process it leaves behind can neither rewrite results.json
nor touch the autograder's files, and is gone before results.json is written. A notebook of
another number scores 0 and says which it is; the tests are named alike in every case.

The results are checked against Gradescope's documented format
(https://gradescope-autograders.readthedocs.io/en/latest/specs/: top-level ``score``,
``execution_time``, ``output``, ``visibility``, ``stdout_visibility``, ``tests``; per test
``score``, ``max_score``, ``status`` passed/failed, ``name``, ``number``, ``output``,
``visibility``, ``extra_data``; ``/autograder/results/stdout`` is what the instructor sees).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import pytest

from helpers.__main__ import main
from helpers.checks import REGISTRY
from helpers.grading.kernels import separate_user

from .builders import NOTEBOOKS, insert, load, plain_notebook, write
from .test_instructor_workflow import _run_autograder, _validate_results, exercises_only, points

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not separate_user.available() or not shutil.which("unshare"),
        reason="needs root (to run the notebook as another user) and unshare",
    ),
]

IDS = [ex.id for ex in REGISTRY.values() if ex.notebook == "02"]


def unused_uid() -> int:
    """A uid no process runs as and no account has: end_all may kill all of its processes."""
    import pwd

    taken = {e.pw_uid for e in pwd.getpwall()}
    for uid in range(61000, 65000):
        if uid not in taken and not separate_user.pids_of(uid):
            return uid
    raise RuntimeError("no free uid")


def path_without_bwrap(tmp_path: Path) -> str:
    """A PATH with every program of /usr/bin but bwrap (symbolic links)."""
    bindir = tmp_path / "bin-no-bwrap"
    bindir.mkdir()
    for entry in Path("/usr/bin").iterdir():
        if entry.name != "bwrap":
            (bindir / entry.name).symlink_to(entry)
    return str(bindir)


def in_private_mounts(cmd: list[str], tmp_path: Path) -> list[str]:
    """This machine's Python lives under /root (mode 0700), which another user cannot cross
    (on Gradescope it lies in /usr and /autograder). In a private mount namespace (nothing
    outside changes) /root becomes a 0711 tmpfs showing only the Python installation."""
    real = Path(os.path.realpath(sys.executable))
    if not str(real).startswith("/root/"):
        return cmd
    top = Path("/root") / real.relative_to("/root").parts[0]
    keep = tmp_path / "keep"
    keep.mkdir(exist_ok=True)
    script = (
        f"mount --bind {top} {keep} && mount -t tmpfs -o mode=0711 tmpfs /root && "
        f'mkdir {top} && mount --bind {keep} {top} && exec "$@"'
    )
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", *cmd]


def run_autograder(root: Path, notebook: Path | None, env: dict, tmp_path: Path) -> dict:
    stdout: list[str] = []
    name = notebook.name if notebook is not None else ""
    wrap = lambda cmd: in_private_mounts(cmd, tmp_path)  # noqa: E731
    results = _run_autograder(root, notebook, name, env=env, wrap=wrap, stdout=stdout)
    return {**results, "_stdout": stdout[0]}


def detached_writer(root: Path) -> str:
    """A cell that leaves a detached process behind, which keeps trying for a minute to
    rewrite results.json to a full score and to write into the autograder's source."""
    forged = json.dumps({"score": 100, "tests": []})
    return f"""
import os, time
_pid = os.fork()
if _pid == 0:
    os.setsid()
    if os.fork() == 0:
        _end = time.time() + 60
        while time.time() < _end:
            for _path, _text in [({str(root / "results" / "results.json")!r}, {forged!r}),
                                 ({str(root / "source" / "pwned.txt")!r}, "x")]:
                try:
                    os.makedirs(os.path.dirname(_path), exist_ok=True)
                    with open(_path, "w") as _f:
                        _f.write(_text)
                except OSError:
                    pass
            time.sleep(0.1)
        os._exit(0)
    os._exit(0)
os.waitpid(_pid, 0)
print("detached writer started")
"""


@pytest.fixture
def autograder_root():
    """Stands in for /autograder (root's, mode 0755: others may read the source, as there)."""
    root = Path(tempfile.mkdtemp(prefix="autograder-"))
    root.chmod(0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def test_gradescope_without_bwrap_runs_the_notebook_as_another_user(tmp_path, autograder_root):
    bundle = tmp_path / "autograder_02.zip"
    assert main(["gradescope", "02", "--out", str(bundle)]) == 0
    root = autograder_root
    with zipfile.ZipFile(bundle) as z:
        setup = z.read("setup.sh").decode()
        z.extractall(root / "source")
    assert "bubblewrap" in setup and "useradd" in setup
    shutil.copyfile(root / "source" / "run_autograder", root / "run_autograder")
    uid = unused_uid()
    env = dict(
        os.environ,
        PATH=path_without_bwrap(tmp_path),
        AUTOGRADER_ROOT=str(root),
        AUTOGRADER_PYTHON=sys.executable,
        AUTOGRADER_USER=str(uid),
    )
    nb = exercises_only(load("02"))
    insert(nb, 1, detached_writer(root))
    hostile = write(nb, tmp_path / "up" / "02_scaled_dot_product_attention.ipynb")
    results = run_autograder(root, hostile, env, tmp_path)
    written = (root / "results" / "results.json").read_bytes()
    time.sleep(2)  # a writer still alive would have rewritten it by now
    assert (root / "results" / "results.json").read_bytes() == written
    assert not (root / "source" / "pwned.txt").exists()
    assert separate_user.pids_of(uid) == []
    assert "processes the notebook left running were ended" in results["output"]  # the writer
    _validate_results({k: v for k, v in results.items() if k != "_stdout"})
    outputs = [t.get("output") for t in results["tests"]]
    assert results["score"] == points("02"), outputs  # the attack earned nothing
    note = f"ran as the unprivileged user uid {uid}"
    assert note in results["output"] and note in results["_stdout"]  # instructor's view

    # notebook 00 uploaded to the 02 autograder: 0, saying which notebook it is
    wrong = write(plain_notebook("def relu(x):\n    return x", notebook="00"), tmp_path / "w.ipynb")
    other = run_autograder(root, wrong, env, tmp_path)
    assert other["score"] == 0 and "is notebook 00, not notebook 02" in other["output"]
    none = run_autograder(root, None, env, tmp_path)
    assert none["score"] == 0 and "No .ipynb" in none["output"]
    names = [[t["name"] for t in r["tests"]] for r in (results, other, none)]
    assert names[0] == names[1] == names[2] == [f"{i}: {REGISTRY[i].title}" for i in IDS]
    for r in (other, none):
        _validate_results({k: v for k, v in r.items() if k != "_stdout"})


@pytest.mark.skipif(os.geteuid() != 0, reason="running as another uid needs root")
@pytest.mark.skipif(not os.access("/usr/bin/python3", os.X_OK), reason="no system Python")
def test_a_kernel_without_an_account_still_has_a_user_name(tmp_path):
    """torch < 2.13 imports torch._dynamo only where getpass.getuser() works (an H100 machine's
    torch 2.11: every case of the Gradescope test above failed with "Artifact of
    type=precompile already registered"); the kernel's environment names a user."""
    from helpers.grading.kernels.environment import kernel_env

    uid = unused_uid()
    code = "import getpass; print(getpass.getuser())"
    done = subprocess.run(
        ["/usr/bin/python3", "-c", code],  # any Python another user may run: getpass is its own
        env=kernel_env(str(tmp_path), 1),
        user=uid,
        cwd="/",
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and done.stdout.strip() == "learner", done


STEAL = """
import os
_source = os.path.join({source!r}, "helpers", "blocks", "attention.py")
try:
    exec(compile(open(_source).read(), "stolen", "exec"), globals())
    print("stolen")
except OSError as exc:
    print("could not read the reference:", exc)
"""


def test_gradescope_without_bwrap_keeps_the_reference_out_of_reach(tmp_path, autograder_root):
    """Attack round 4: the bundle's source is world-readable, as Gradescope extracts it; a
    notebook running as the unprivileged user that copies the course's reference block (the
    student notebook's stubs, plus one cell) gets nothing for it."""
    bundle = tmp_path / "autograder_02.zip"
    assert main(["gradescope", "02", "--out", str(bundle)]) == 0
    root = autograder_root
    with zipfile.ZipFile(bundle) as z:
        z.extractall(root / "source")
    for top, dirs, files in os.walk(root / "source"):  # world-readable, as unzipped there
        for name in dirs:
            os.chmod(os.path.join(top, name), 0o755)
        for name in files:
            os.chmod(os.path.join(top, name), 0o644)
    shutil.copyfile(root / "source" / "run_autograder", root / "run_autograder")
    env = dict(
        os.environ,
        PATH=path_without_bwrap(tmp_path),
        AUTOGRADER_ROOT=str(root),
        AUTOGRADER_PYTHON=sys.executable,
        AUTOGRADER_USER=str(unused_uid()),
    )
    nb = load("02", folder=NOTEBOOKS)  # the stubs, as a student gets them
    insert(nb, len(nb.cells), STEAL.format(source=str(root / "source")))
    hostile = write(nb, tmp_path / "up" / "02_scaled_dot_product_attention.ipynb")
    results = run_autograder(root, hostile, env, tmp_path)
    outputs = [t.get("output") for t in results["tests"]]
    assert results["score"] == 0, outputs
    assert "ran as the unprivileged user" in results["output"]
    mode = os.stat(root / "source" / "helpers").st_mode & 0o777
    assert mode == 0o755  # given back once graded
