"""The sandbox's parts that need no kernel: choosing it, what it binds, the plain channels,
the check of the judge's sources, and spotting the reference inside a learner's object."""

from __future__ import annotations

import functools
import multiprocessing as mp
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest
import torch

import helpers
from helpers.blocks.attention import causal_mask
from helpers.blocks.multihead import MultiHeadAttention as ReferenceMHA
from helpers.checks import REGISTRY
from helpers.checks.framework import CheckResult
from helpers.grading import KERNEL_SIDE_SOURCE, Row, UsageError, load_results
from helpers.grading.books.gradebook import fields
from helpers.grading.judging import judging, sources
from helpers.grading.kernels import sandbox, scratch
from helpers.grading.kernels.pipe import recv_plain, send_plain
from helpers.grading.records import Graded

from ..speed import scaled
from .builders import ROOT
from .test_grading_units import graded_as_kernel

# --------------------------------------------------------------------------- choosing the sandbox


def test_without_bwrap_auto_warns_and_bwrap_refuses(monkeypatch):
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    kind, warning = sandbox.resolve("auto")
    assert kind == "none" and warning.startswith("WARNING: submissions run UNCONFINED")
    assert "apt-get install bubblewrap" in warning
    with pytest.raises(UsageError, match="--sandbox bwrap: .*not installed"):
        sandbox.resolve("bwrap")
    assert sandbox.resolve("none")[0] == "none"


def test_the_cli_exits_2_when_the_sandbox_is_required_but_missing(monkeypatch, tmp_path, capsys):
    from helpers.__main__ import main

    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    (tmp_path / "00_a.ipynb").write_text("{", encoding="utf-8")
    code = main(
        [
            "grade",
            str(tmp_path / "00_a.ipynb"),
            "--out",
            str(tmp_path / "g.csv"),
            "--sandbox",
            "bwrap",
            "--no-progress",
        ]
    )
    assert code == 2 and "bubblewrap" in capsys.readouterr().err


def test_the_sandbox_binds_the_environment_not_the_repository(tmp_path):
    package = str(Path(helpers.__file__).resolve().parent)
    roots = sandbox.python_roots()
    assert package in roots and str(ROOT) not in roots and "/" not in roots
    shown = [*roots, *sandbox.SYSTEM]  # what a sandbox binds; the solutions and tmp_path: not
    for private in (os.path.realpath(ROOT / "solutions"), os.path.realpath(tmp_path)):
        assert not any(private == r or private.startswith(r.rstrip("/") + "/") for r in shown)
    hidden = Path(sys.prefix).resolve() / f"hidden-{uuid.uuid4().hex[:6]}"
    hidden.mkdir()
    try:
        cmd = sandbox.bwrap_command(str(tmp_path), hidden=[str(hidden), str(ROOT / "solutions")])
    finally:
        hidden.rmdir()
    pairs = list(zip(cmd, cmd[1:]))
    assert ("--tmpfs", str(hidden)) in pairs  # inside a bound folder: covered
    assert ("--bind", str(tmp_path.resolve())) in pairs and (
        "--unshare-net",
        "--unshare-ipc",
    ) in pairs
    assert ("--cap-drop", "ALL") in pairs and cmd[-1] == "--"
    assert not any(a == "--tmpfs" and b == str(ROOT / "solutions") for a, b in pairs)  # not bound


def fake_dev(root: Path) -> Path:
    """A stand-in for a GPU machine's /dev: nodes at the top and in folders (MIG's caps)."""
    for name in ("nvidia0", "nvidiactl", "nvidia-caps/nvidia-cap1", "dri/card0"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("")
    (root / "dri" / "by-path").mkdir()
    (root / "dri" / "by-path" / "card").symlink_to("../card0")
    return root


def test_cuda_gets_the_nvidia_device_nodes(tmp_path, monkeypatch):
    dev = fake_dev(tmp_path / "dev")
    monkeypatch.setattr(sandbox, "_devices", functools.partial(sandbox._devices, dev=str(dev)))
    cmd = sandbox.bwrap_command(str(tmp_path), device="cuda")
    binds = [(b, c) for a, b, c in zip(cmd, cmd[1:], cmd[2:]) if a == "--dev-bind-try"]
    assert binds == [
        (str(dev / "dri/card0"), "/dev/dri/card0"),
        (str(dev / "nvidia-caps/nvidia-cap1"), "/dev/nvidia-caps/nvidia-cap1"),
        (str(dev / "nvidia0"), "/dev/nvidia0"),
        (str(dev / "nvidiactl"), "/dev/nvidiactl"),
    ]  # every node by itself, never a folder (a writable piece of the host's /dev), no link
    assert "--dev-bind-try" not in sandbox.bwrap_command(str(tmp_path))  # cpu: none


@pytest.mark.skipif(sandbox.resolve("auto")[0] != "bwrap", reason="bubblewrap cannot sandbox here")
def test_a_device_nodes_folder_is_read_only_in_the_sandbox(tmp_path, monkeypatch):
    """An H100 showed it: /dev/nvidia-caps bound whole was writable inside (the host's /dev)."""
    dev = fake_dev(tmp_path / "dev")
    monkeypatch.setattr(sandbox, "_devices", functools.partial(sandbox._devices, dev=str(dev)))
    work = tmp_path / "work"
    work.mkdir()
    cmd = sandbox.bwrap_command(str(work), device="cuda")
    script = (
        "test -e /dev/nvidia-caps/nvidia-cap1 && test -e /dev/dri/card0 && test -e /dev/nvidia0;"
        " echo nodes $?; for d in /dev/nvidia-caps /dev/dri /dev; do"
        " touch $d/probe 2>/dev/null && echo writable $d; done; true"
    )
    out = subprocess.run([*cmd, "/bin/sh", "-c", script], capture_output=True, text=True)
    assert out.stdout.split("\n")[:-1] == ["nodes 0"], out
    assert not (dev / "nvidia-caps" / "probe").exists()


# ------------------------------------------------------------------------- plain channels, sources


class Payload:
    def __reduce__(self):
        return (os.system, (f"touch {Path.cwd() / 'pwned'}",))


# --------------------------------------------------------------- what a submission leaves behind


def _as_nobody(test) -> int:
    """Run ``test()`` (its return: the exit code) in a child that is not root: root ignores file
    modes, so a grader run by root cannot show what chmod does to one run by an instructor."""
    pid = os.fork()
    if pid == 0:
        code = 99
        try:
            if os.getuid() == 0:
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
            code = test()
        finally:
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def _locked_slot(outside: str) -> Path:
    """A slot as a hostile kernel can leave it: folders and files with mode 000, the work folder
    and the slot's own folder read-only, and a link to a folder outside."""
    slot = Path(tempfile.mkdtemp())
    work = scratch.new_work_folder(slot)
    (work / "locked" / "inner").mkdir(parents=True)
    (work / "locked" / "inner" / "f").write_text("x")
    (work / "locked" / "f").write_text("x")
    (work / "link").symlink_to(outside)
    for path in (work / "locked" / "f", work / "locked" / "inner", work / "locked"):
        os.chmod(path, 0)
    os.chmod(work, 0o500)
    os.chmod(slot, 0o500)
    return slot


def test_a_slot_left_locked_by_chmod_is_emptied_and_used_again():
    def test():
        outside = tempfile.mkdtemp()
        Path(outside, "keep").write_text("x")
        os.chmod(outside, 0o500)  # a link must not be followed: this mode must stay
        naive = _locked_slot(outside)
        shutil.rmtree(naive, ignore_errors=True)
        if not naive.exists():
            return 1  # the premise: without scratch.empty, the folder stays
        slot = _locked_slot(outside)
        left = scratch.empty(slot)
        if left or list(slot.iterdir()):
            return 2
        os.chmod(slot, 0o500)
        if not scratch.new_work_folder(slot).is_dir():
            return 3
        if os.stat(outside).st_mode & 0o777 != 0o500 or not Path(outside, "keep").exists():
            return 4
        scratch.remove(slot)
        return 5 if slot.exists() else 0

    assert _as_nobody(test) == 0


def test_one_huge_message_is_dropped_before_the_grader_reads_it(tmp_path):
    from helpers.grading.kernels.kernel import MAX_MESSAGE_BYTES, Kernel

    private = tmp_path / "private"
    private.mkdir()
    limits = {"memory_bytes": 2**31, "file_bytes": 2**20, "threads": 1, "output_cap": 2**21}
    kernel = Kernel(str(tmp_path), private=str(private), **limits)
    try:

        def drained(until=lambda: False):  # output may arrive after the reply
            end = time.monotonic() + scaled(3)
            while not until() and time.monotonic() < end:
                kernel._drain_iopub()
                time.sleep(0.05)

        assert kernel.run('print("x" * 1000)', 30).status == "ok"
        drained(until=lambda: kernel.output_bytes > 1000)
        assert 1000 < kernel.output_bytes < 2000 and not kernel.output_capped
        assert kernel.run(f'print("x" * {MAX_MESSAGE_BYTES + 1000})', 60).status == "ok"
        assert kernel.run("x = 1", 30).status == "ok"  # the kernel goes on
        drained()
        assert kernel.output_bytes < 2000  # never parsed: not counted
        assert kernel.output_capped  # but reported as output over the cap
    finally:
        kernel.close()


def test_a_flood_of_large_messages_does_not_fill_the_grader(tmp_path):
    """Issue 31: 600 display messages just under MAX_MESSAGE_BYTES took a grader worker to
    2,678 MiB. Now at most IOPUB_QUEUE wait to be read, and past the cap none is parsed: the
    grader's peak memory grows by far less than the output (here 150 x 3.5 MiB = 525 MiB)."""
    import resource

    from helpers.grading.kernels.kernel import Kernel

    private = tmp_path / "private"
    private.mkdir()
    limits = {"memory_bytes": 2**32, "file_bytes": 2**20, "threads": 1, "output_cap": 2**21}
    kernel = Kernel(str(tmp_path), private=str(private), **limits)
    try:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB
        flood = (  # sent while the grader is not reading: ZeroMQ queues what it lets in
            "import threading\n"
            "from IPython.display import display\n"
            "blob = {'text/plain': 'x' * (3_500_000)}\n"
            "def send():\n"
            "    for _ in range(150):\n"
            "        display(blob, raw=True)\n"
            "threading.Thread(target=send).start()\n"
        )
        assert kernel.run(flood, 120).status == "ok"
        time.sleep(scaled(8))
        end = time.monotonic() + scaled(5)
        while time.monotonic() < end:
            kernel._drain_iopub()
            time.sleep(0.05)
        grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024  # MiB
        assert kernel.output_capped
        assert grown < 200, f"the grader grew by {grown:.0f} MiB"
        assert kernel.run("x = 1", 30).status == "ok"  # the kernel goes on
    finally:
        kernel.close()


def test_the_worker_channel_never_unpickles(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    here, there = mp.Pipe(duplex=False)
    there.send_bytes(pickle.dumps(Payload()))  # what a process writing into the pipe could send
    with pytest.raises(ValueError):
        recv_plain(here)
    assert not (tmp_path / "pwned").exists()
    graded = Graded([Row("a.ipynb", "00", "00.relu", 1.0, 1.0, "passed", "ok", "00.relu/x")], ["n"])
    send_plain(there, ["done", graded.to_plain()])
    kind, data = recv_plain(here)
    assert kind == "done" and Graded.from_plain(data) == graded


def test_a_changed_judge_file_is_reported(monkeypatch):
    assert sources.changed_sources() == []
    path = next(iter(sources.JUDGE_DIGESTS))
    monkeypatch.setitem(sources.JUDGE_DIGESTS, path, "0" * 64)
    assert sources.changed_sources() == [path]


def test_the_kernel_side_of_the_checks_is_shipped_to_the_kernel_whole():
    names = {p.stem for p in (sources.CHECKS / "run").glob("*.py")} - {"__init__"}
    # and device.py: the runner's to_device, a private copy too
    assert set(sources.CHECK_SOURCES) == names | {"device"}
    assert {"calling", "runner", "parts"} <= names


def test_the_mistake_code_reaches_the_row(monkeypatch):
    ex = REGISTRY["00.relu"]
    result = CheckResult(ex.id, False, 0.0, 1.0, ["you returned |x|"], "failed")
    result.mistake = "00.relu/abs"  # what the check framework reports once it names mistakes
    monkeypatch.setattr(judging, "evaluate", lambda ex, pairs, *how: result)
    assert judging.judge(ex, [], []) == ("failed", 0.0, "you returned |x|", "00.relu/abs")
    row = Row("a.ipynb", "00", ex.id, 0.0, 1.0, "failed", "you returned |x|", "00.relu/abs")
    assert fields(row)[6:] == ["00.relu/abs", "you returned |x|"]


# --------------------------------------------------------------------------- the reference, wrapped


@pytest.fixture(scope="module")
def watching_side():
    from helpers.grading import CHECK_SOURCES

    ns = {"__name__": "__course_grader__"}
    exec(compile(KERNEL_SIDE_SOURCE, "<kernel_side>", "exec"), ns)
    ns["setup"](
        CHECK_SOURCES,
        package=f"__grader_watch_{uuid.uuid4().hex[:6]}__",
        references=str(sources.BLOCKS),
    )
    return ns


def reference_run(side, tmp_path, ex_id, candidate) -> dict:
    from helpers.grading import kernel_task, make_probes, probe_fields, target_name

    ex = REGISTRY[ex_id]
    probes_path, out = tmp_path / "probes.pt", tmp_path / "out.pt"
    torch.save([probe_fields(p) for p in make_probes(ex, 5)], probes_path)
    name = target_name(ex)
    side["grade"](kernel_task(ex), name, str(probes_path), str(out), "cpu", {name: candidate})
    return load_results(out)


def sdpa(q, k, v, mask=None):  # the learner's own, calling another reference block on the way
    causal_mask(2)
    scores = q @ k.transpose(-2, -1) / k.shape[-1] ** 0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(dim=-1)
    return weights @ v, weights


class Subclass(ReferenceMHA):
    pass


class Holder(torch.nn.Module):
    def __init__(self, *args, **kwargs):
        super().__init__()
        self.inner = ReferenceMHA(*args, **kwargs)

    def forward(self, *args, **kwargs):
        return self.inner(*args, **kwargs)


def test_a_thin_wrapper_is_caught(watching_side, tmp_path):
    from helpers.blocks import attention

    def wrapper(q, k, v, mask=None):
        return attention.scaled_dot_product_attention(q, k, v, mask)

    data = reference_run(watching_side, tmp_path, "02.scaled_dot_product_attention", wrapper)
    assert data["reference"] == "helpers.blocks.attention.scaled_dot_product_attention"
    assert judging.verdict(REGISTRY["02.scaled_dot_product_attention"], [], data, None)[:2] == (
        "failed",
        0.0,
    )


@pytest.mark.parametrize("candidate", [Subclass, Holder])
def test_a_subclass_or_a_holder_of_the_reference_module_is_caught(
    watching_side, tmp_path, candidate
):
    data = reference_run(watching_side, tmp_path, "03.MultiHeadAttention", candidate)
    assert data["reference"] == "helpers.blocks.multihead.MultiHeadAttention"


def test_own_code_using_other_blocks_is_not_flagged(watching_side, tmp_path):
    data = reference_run(watching_side, tmp_path, "02.scaled_dot_product_attention", sdpa)
    assert data["status"] == "ran" and data["reference"] == ""
    assert (
        graded_as_kernel(watching_side, tmp_path, "02.scaled_dot_product_attention", sdpa)[0]
        == "passed"
    )


def test_switching_the_hook_off_is_refused(watching_side, tmp_path):
    def sneaky(x):
        sys.setprofile(None)
        return x * (x > 0)

    data = reference_run(watching_side, tmp_path, "00.relu", sneaky)
    assert data["status"] == "tampered"
    assert judging.verdict(REGISTRY["00.relu"], [], data, None) == (
        "error",
        0.0,
        "not graded: `relu` replaced the grader's profile hook (sys.setprofile).",
        "",
    )


def test_the_view_holds_every_grading_module_the_zygote_imports():
    """A module the zygote imports but the kernel's view leaves out kills every zygote (each
    sandbox then restarts, and kernels fall back to processes of their own)."""
    from helpers.grading.kernels.kernel_view import SANDBOX_MODULES
    from tests.test_import_rules import GRAPH

    seen, todo = set(), ["helpers.grading.kernels.zygote"]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo += [m for m in GRAPH[module] if m.startswith("helpers.grading.")]
    paths = {m.removeprefix("helpers.grading.").replace(".", "/") + ".py" for m in seen}
    packages = {str(Path(p).parent / "__init__.py").removeprefix("./") for p in paths}
    assert paths | packages <= set(SANDBOX_MODULES), paths | packages


@pytest.mark.skipif(not shutil.which("bwrap"), reason="needs bubblewrap")
def test_a_slot_is_handed_out_once_its_zygote_has_imported_the_view():
    """A worker rewrites its slot's view of the package at once (kernel_view.fill); a zygote
    still importing that view dies (CI: its first kernel fell back to a process of its own).
    So a slot is not handed out before its zygote says it is ready, and then survives it."""
    from helpers.grading import batch
    from helpers.grading.kernels import kernel_view
    from helpers.grading.kernels.slots import Slots
    from helpers.grading.records import Settings

    slots = Slots(1, Settings(), "bwrap", True)
    try:
        assert slots.take() is None  # importing torch takes longer than this
        loop = batch._Batch([], Settings(), slots, finish=None)
        deadline = time.monotonic() + scaled(300)
        while slots.starting:  # the batch loop's wait wakes when the zygote answers
            assert time.monotonic() < deadline, "the zygote never became ready"
            loop.collect()
        started = time.monotonic()
        loop.collect()  # its message was read: the next wait lasts its whole second
        assert time.monotonic() - started >= 0.9
        slot = slots.take()
        for _ in range(20):
            kernel_view.fill(slot.view, "01")
        slot.zygote.reset()  # RuntimeError("the kernel zygote has exited") if it died
        assert slot.zygote.proc.poll() is None
    finally:
        slots.close()
