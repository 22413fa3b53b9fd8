"""Running one submission: its cells in a kernel under limits, then each exercise's probes.

1. the notebook (and the plain files beside it) is copied into the slot's folder, the only
   folder its sandbox can write (and the only one of the grader's it can see);
2. the code cells run in a kernel, each under a time limit, the whole notebook under another;
   a timeout or a dead kernel stops the run, and a dead kernel is replaced by a fresh one that
   re-runs the cells before the fatal one;
3. for each exercise: probes are made from the secret seed *here*, written to a file; the
   kernel calls the learner's object on them (kernel_side.py, sent as text) and saves the
   outcomes; they are loaded as plain data and judged here (judging.py).
"""

from __future__ import annotations

import base64
import json
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

from . import scratch
from .judging import (
    BLOCKS,
    CHECK_SOURCES,
    KERNEL_SIDE_SOURCE,
    ResultError,
    load_results,
    make_probes,
    probe_fields,
    verdict,
)
from .kernel import CellRun, Kernel
from .records import Graded, Row, Settings, Submission
from .submissions import (
    check_gradable,
    code_cells,
    copy_siblings,
    exercises_of,
    problem_rows,
    read_notebook,
    target_name,
)


@dataclass
class Slot:
    """Where a submission runs: ``folder`` (the sandbox's only writable folder, emptied between
    submissions), the slot's ``zygote`` (None: each kernel is a new process), and ``sandbox``,
    the ``bwrap ... --`` prefix for a kernel started as a new process (None: unconfined)."""

    folder: Path
    zygote: object | None = None
    sandbox: list[str] | None = None


class KernelRun:
    """The state of one submission's kernel: which cells ran, where it stopped."""

    def __init__(
        self,
        nb,
        workdir: Path,
        private: Path,
        settings: Settings,
        slot: Slot,
        on_kernel: Callable[[int], None],
    ):
        self.settings, self.workdir, self.private, self.slot = settings, workdir, private, slot
        self.on_kernel = on_kernel
        self.fallback = ""  # why the kernel could not be forked from the zygote
        self.cells = code_cells(nb)
        self.errors: dict[int, CellRun] = {}  # position -> the error it raised
        self.stop: tuple[int, CellRun, str] | None = None  # position, run, why
        self.kernel: Kernel | None = None
        self.starts = 0
        self.notebook_seconds = 0.0
        self.output_capped = False

    def start(self) -> Kernel:
        self.close()
        self.starts += 1
        s, slot = self.settings, self.slot
        limits = {
            "memory_bytes": s.memory_bytes,
            "file_bytes": s.file_bytes,
            "threads": s.threads,
            "output_cap": s.output_cap,
            "private": str(self.private),
        }
        if slot.zygote is not None:
            try:
                self.kernel = Kernel(
                    str(self.workdir), zygote=slot.zygote, ipc=slot.zygote.sandboxed, **limits
                )
            except Exception as exc:  # fall back to a kernel of its own (sandboxed alike)
                self.fallback = f"{type(exc).__name__}: {exc}"
        if self.kernel is None:
            self.kernel = Kernel(str(self.workdir), sandbox=slot.sandbox, **limits)
            if self.kernel.pid:  # a process of its own: the grader ends its group at the end
                self.on_kernel(self.kernel.pid)
        return self.kernel

    def close(self) -> None:
        if self.kernel is not None:
            self.output_capped |= self.kernel.output_capped
            self.kernel.close()
            self.kernel = None

    def cell_label(self, pos: int) -> str:
        return f"cell {self.cells[pos][0] + 1}"

    def execute(self) -> None:
        """Run the learner's cells until the end, a timeout or a dead kernel."""
        s = self.settings
        kernel = self.start()
        start = time.monotonic()
        deadline = start + s.total_timeout
        for pos, (_, cell) in enumerate(self.cells):
            remaining = deadline - time.monotonic()
            limit = min(s.cell_timeout, remaining)
            run = (
                kernel.run(cell.source, limit) if remaining > 0 else CellRun("timeout", alive=True)
            )
            if run.status == "error":
                self.errors[pos] = run
            elif run.status == "timeout":
                why = (
                    f"the notebook ran over its time limit of {s.total_timeout:g} s"
                    if limit < s.cell_timeout
                    else f"{self.cell_label(pos)} ran over the time limit of {s.cell_timeout:g} s "
                    "per cell"
                )
                self.stop = (pos, run, why)
                break
            elif run.status == "died":
                self.stop = (
                    pos,
                    run,
                    f"the kernel died in {self.cell_label(pos)} (os._exit, a crash, "
                    "or out of memory)",
                )
                break
        self.notebook_seconds = time.monotonic() - start
        if not kernel.alive():
            self.replay()

    def replay(self) -> bool:
        """A fresh kernel that re-runs the cells before the fatal one (once, within limits)."""
        if self.starts >= 3:
            self.close()
            return False
        end = self.stop[0] if self.stop else len(self.cells)
        kernel = self.start()
        deadline = time.monotonic() + self.settings.total_timeout
        for pos in range(end):
            remaining = deadline - time.monotonic()
            run = (
                kernel.run(self.cells[pos][1].source, min(self.settings.cell_timeout, remaining))
                if remaining > 0
                else CellRun("timeout")
            )
            if run.status in ("timeout", "died"):
                self.close()
                return False
        return True

    def usable(self) -> bool:
        if self.kernel is not None and self.kernel.alive():
            return True
        return self.replay()


def grade_submission(
    sub: Submission,
    settings: Settings,
    nb=None,
    slot: Slot | None = None,
    on_kernel: Callable[[int], None] = lambda pid: None,
) -> Graded:
    """Run one submission and judge its exercises (the worker's job); ``nb`` if already read.

    Without ``slot`` (a single submission, outside a batch) the kernel is a new process in a
    temporary folder, sandboxed as ``settings.sandbox`` says.
    """
    started = time.monotonic()
    if nb is None:
        nb = read_notebook(sub)
    check_gradable(sub)
    if sub.problem:
        return Graded(problem_rows(sub, "error", sub.problem), notes=list(sub.notes))
    own = slot is None
    if own:
        slot = standalone_slot(settings)
    try:
        work = scratch.new_work_folder(slot.folder)
        copy_siblings(sub.path, work, settings.student_pattern)
        (work / sub.path.name).write_bytes(sub.path.read_bytes())
        private = Path(tempfile.mkdtemp(prefix=".grader-", dir=work))
        run = KernelRun(nb, work, private, settings, slot, on_kernel)
        try:
            graded = grade_in_kernel(sub, run, settings)
        finally:
            run.close()
    finally:
        if own:
            scratch.remove(slot.folder)
    graded.notebook_seconds = run.notebook_seconds
    if run.fallback:
        graded.notes.append(f"(grader) the kernel was started as a new process: {run.fallback}")
    if run.output_capped:
        graded.notes.append(
            f"the notebook printed more than {settings.output_cap:,} characters; "
            "the output was not kept (it is not graded)."
        )
    graded.notes[:0] = sub.notes
    graded.seconds = time.monotonic() - started
    return graded


def standalone_slot(settings: Settings) -> Slot:
    from . import sandbox

    folder = Path(tempfile.mkdtemp(prefix="grade-", dir=settings.workdir)).resolve()
    kind, _ = sandbox.resolve(settings.sandbox)
    prefix = (
        sandbox.bwrap_command(str(folder), hidden=settings.hidden, device=settings.device)
        if kind == "bwrap"
        else None
    )
    return Slot(folder, sandbox=prefix)


def grade_in_kernel(sub: Submission, run: KernelRun, settings: Settings) -> Graded:
    graded = Graded(rows=[])
    try:
        run.execute()
    except Exception as exc:  # the kernel did not start: the grader's environment
        message = f"the kernel could not start: {type(exc).__name__}: {exc}"
        graded.rows += problem_rows(sub, "error", message)
        return graded
    for pos, err in sorted(run.errors.items()):
        graded.notes.append(f"{run.cell_label(pos)} raised {err.describe()}")
    if run.stop:
        graded.notes.append(run.stop[2] + "; the cells after it were not run.")
    token = os.urandom(6).hex()
    ready = {"kernel": None}
    for i, ex in enumerate(exercises_of(sub.notebook)):
        status, points, message, mistake = grade_exercise(ex, i, run, settings, token, ready)
        graded.messages[ex.id] = message
        graded.rows.append(
            Row(sub.label, sub.notebook, ex.id, points, ex.points, status, message, mistake)
        )
    return graded


def grade_exercise(
    ex, i: int, run: KernelRun, settings: Settings, token: str, ready: dict
) -> tuple[str, float, str, str]:
    """(status, points, message, mistake) of one exercise, from a call in the kernel."""
    name = target_name(ex)
    if not run.usable():
        return "error", 0.0, "not graded: the kernel could not be restarted after it died.", ""
    if ready["kernel"] is not run.kernel:
        problem = set_up_in_kernel(run, token, ex.notebook, settings)
        if problem:
            return (
                "error",
                0.0,
                f"not graded: the grader could not set up in the kernel ({problem}).",
                "",
            )
        ready["kernel"] = run.kernel
    probes = make_probes(ex, settings.seed)
    probes_path = run.private / f"probes-{i}.pt"
    out_path = run.private / f"results-{i}-{run.starts}.pt"
    # "xb": the kernel can write in this folder; never follow a link it planted to a host file
    with open(probes_path, "xb") as f:
        torch.save([probe_fields(p) for p in probes], f)
    call = (
        f"_course_grader_{token}['grade']({ex.id!r}, {name!r}, {str(probes_path)!r}, "
        f"{str(out_path)!r}, {settings.device!r}, (lambda: None).__globals__)"
    )
    result = run.kernel.run(call, settings.cell_timeout)
    if result.status == "died":
        return "error", 0.0, f"the kernel died while running `{name}` on the grader's inputs.", ""
    if result.status == "timeout":
        return (
            "timeout",
            0.0,
            (
                f"`{name}` did not finish within {settings.cell_timeout:g} s on "
                "the grader's inputs (an endless loop?)."
            ),
            "",
        )
    try:
        data = load_results(out_path)
    except ResultError as exc:
        return "error", 0.0, f"not graded: {exc}.", ""
    return verdict(ex, probes, data, run, settings.carry_forward)


def set_up_in_kernel(run: KernelRun, token: str, notebook: str, settings: Settings) -> str:
    """Load the grader's code into the kernel; "" when done, else what went wrong."""
    release, setup = bootstrap_code(token, notebook)
    run.kernel.run(release, settings.cell_timeout)
    boot = run.kernel.run(setup, settings.cell_timeout)
    return "" if boot.status == "ok" else boot.describe()


def bootstrap_code(token: str, notebook: str | None = None) -> tuple[str, str]:
    """Two cells: free what the last exception holds, then set the grader up in the kernel."""
    payload = base64.b64encode(KERNEL_SIDE_SOURCE.encode()).decode()
    sources = base64.b64encode(json.dumps(CHECK_SOURCES).encode()).decode()
    name = f"_course_grader_{token}"
    # IPython keeps the last exception's frames (sys.last_*, its traceback formatter, the last
    # execution result): after a MemoryError they still hold the memory, so let them go first
    release = (
        f"def {name}_release():\n"
        "    import sys, gc\n"
        "    held = getattr(sys, 'last_value', None) is not None\n"
        "    for a in ('last_type', 'last_value', 'last_traceback', 'last_exc'):\n"
        "        setattr(sys, a, None)\n"
        "    try:\n"
        "        ip = __import__('IPython').get_ipython()\n"
        "        ip.InteractiveTB.tb = None\n"
        "        ip._last_traceback = None\n"
        "        ip.last_execution_result = None\n"
        "    except Exception:\n"
        "        pass\n"
        "    if held:\n"
        "        gc.collect()\n"
        f"{name}_release()\n"
    )
    setup = (
        f"{name} = {{'__name__': '__course_grader__'}}\n"
        f"__import__('builtins').exec(__import__('base64').b64decode('{payload}').decode(), "
        f"{name})\n"
        f"{name}['setup']({{k: tuple(v) for k, v in __import__('json').loads("
        f"__import__('base64').b64decode('{sources}').decode()).items()}}, "
        f"notebooks={[notebook] if notebook else None!r}, references={str(BLOCKS)!r})\n"
    )
    return release, setup
