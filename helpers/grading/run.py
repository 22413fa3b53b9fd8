"""Running one submission: its cells in a kernel under limits, then each exercise's probes.

1. the notebook (and the plain files beside it) is copied into the slot's folder, the only
   folder its sandbox can write (and the only one of the grader's it can see);
2. the code cells run in a kernel, each under a time limit, the whole notebook under another;
   a timeout or a dead kernel stops the run. A kernel that a limit interrupted (or killed) is
   never trusted again: the grader's code runs only in a sound kernel, a fresh one that re-runs
   the cells that completed (``KernelRun.usable`` in kernel_run.py); the same after a probe's
   timeout;
3. for each exercise: probes are made from the secret seed *here*, written to a file; the
   kernel calls the learner's object on them (kernel_side.py, sent as text) and saves the
   outcomes; they are loaded as plain data and judged here (judging.py).
"""

from __future__ import annotations

import base64
import functools
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch

from .judging import lines
from .judging.judging import (
    Verdict,
    judge_limited,
    kernel_task,
    make_probes,
    new_private_file,
    probe_fields,
)
from .judging.judging import problem as problem_verdict
from .judging.sources import BLOCKS, CHECK_SOURCES, KERNEL_SIDE_SOURCE
from .kernels import cgroup, kernel_view, scratch, slot_disk, watchdog
from .kernels.kernel import CellRun
from .kernels.kernel_run import KernelRun, Slot
from .kernels.slots import watch
from .reading.submissions import (
    check_gradable,
    copy_siblings,
    exercises_of,
    problem_rows,
    read_notebook,
    target_name,
)
from .records import Graded, Row, Settings, Submission, UsageError


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
    dog = None
    if own:
        slot = standalone_slot(settings)
        dog, on_kernel = watched(slot, settings, on_kernel)
    try:
        if slot.view is not None:
            kernel_view.fill(slot.view, sub.notebook)
        work = scratch.new_work_folder(slot.folder)
        copy_siblings(sub.path, work, settings.student_pattern)
        (work / sub.path.name).write_text(json.dumps(nb), encoding="utf-8")  # its code only
        private = Path(tempfile.mkdtemp(prefix=".grader-", dir=work))
        run = KernelRun(nb, work, private, settings, slot, on_kernel)
        run.private_fd = os.open(private, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            graded = grade_in_kernel(sub, run, settings)
        finally:
            run.close()
            os.close(run.private_fd)
        full = slot_disk.full_message(str(slot.folder)) if slot.disk else ""
        memory = run.memory_verdict()  # a process the watchdog ended, the kernel or its child
        for said in filter(None, (full, memory)):
            if not any(said in note for note in graded.notes):
                graded.notes.append(said + ".")
    finally:
        if own:
            close_standalone(slot, dog)
    graded.notebook_seconds = run.notebook_seconds
    if run.replayed:
        graded.notes.append(
            "to grade, the grader re-ran "
            + ", then ".join(run.replayed)
            + " in a fresh kernel (a time limit or a crash had stopped the first one)."
        )
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
    from .kernels import sandbox

    kind, _ = sandbox.resolve(settings.sandbox)
    problem = scratch.check_workdir(settings.workdir) if kind == "bwrap" else ""
    if problem:
        raise UsageError(problem)
    root = Path(tempfile.mkdtemp(prefix="grade-", dir=settings.workdir)).resolve()
    folder, view = root / "slot", root / "view"
    folder.mkdir()
    disk = slot_disk.available(settings.workdir) and not slot_disk.mount(str(folder))
    prefix = (
        sandbox.bwrap_command(
            str(folder),
            hidden=settings.hidden,
            device=settings.device,
            package=str(kernel_view.fill(view, None)),
        )
        if kind == "bwrap"
        else None
    )
    return Slot(
        folder,
        sandbox=cgroup.limit(prefix, str(folder), settings.memory_bytes),
        view=view,
        view_bound=kind == "bwrap",
        disk=disk,
        memory_report=root / "memory",
    )


def watched(slot: Slot, settings: Settings, on_kernel: Callable[[int], None]):
    """A memory watchdog for a slot of one submission, and ``on_kernel`` that also hands it
    each kernel started (a process of its own: nothing spared)."""
    if settings.memory_bytes <= 0:
        return None, on_kernel
    dog = watchdog.Watchdog()

    def seen(pid: int) -> None:
        on_kernel(pid)
        watch(dog, slot, str(pid), settings.memory_bytes, root=pid, spare=0)

    return dog, seen


def close_standalone(slot: Slot, dog) -> None:
    if dog is not None:
        dog.close()
    cgroup.release(str(slot.folder))
    if slot.disk:
        scratch.empty(slot.folder)
        slot_disk.unmount(str(slot.folder))
    scratch.remove(slot.folder.parent)


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
        if status in ("failed", "error") and message.startswith("case "):  # a check's failure
            message += lines.point_at_line(ex, run, trial_in_kernel(ex, i, run, settings, token))
        graded.messages[ex.id] = message
        graded.rows.append(
            Row(sub.label, sub.notebook, ex.id, points, ex.points, status, message, mistake)
        )
    return graded


def grade_exercise(
    ex, i: int, run: KernelRun, settings: Settings, token: str, ready: dict
) -> Verdict:
    """The verdict on one exercise, from a call in the kernel (a sound
    one: see ``KernelRun.usable``). Once more in a fresh kernel when its results file was cut or
    the kernel died during the call: a death the learner's code causes happens again, one from
    outside (a busy machine's OOM killer, a kill) is not the learner's to pay for."""
    for attempt in range(2):
        problem = sound_and_set_up(run, token, settings, ready)
        if problem and attempt:  # no kernel left to try again in: the first answer stands
            break
        if problem:
            return problem_verdict("not_graded", error=problem)
        answer = call_in_kernel(ex, i, run, settings, token)
        if answer.status not in ("cut", "died") or attempt:
            break
        run.sound = False  # the results were not all written, or it died: never trust it
    if answer.status == "cut":
        return problem_verdict("not_graded", error=answer.message)
    if answer.status == "died":
        return answer._replace(status="error")
    return answer


def sound_and_set_up(run: KernelRun, token: str, settings: Settings, ready) -> str:
    """ "" once the grader's code is set up in a sound kernel, else why it could not be."""
    while True:
        if not run.usable():
            return "the grader could not get a working kernel again after it stopped"
        if ready["kernel"] is run.kernel:
            return ""
        boot = set_up_in_kernel(run, token, settings)
        if boot.status == "ok":
            ready["kernel"] = run.kernel
            return ""
        if run.sound:  # the notebook left a kernel the grader's code cannot run in
            return f"the grader could not set up in the kernel ({boot.describe()})"
        # a time limit or a death struck the grader's own setup: a fresh kernel, if any is left


def trial_in_kernel(ex, i: int, run: KernelRun, settings: Settings, token: str):
    """``passes(source)`` for judging/lines.py: the learner's definition, edited, run in the
    kernel on the grader's inputs at its seed and the next, and judged here."""
    count = [0]

    def passes(source: str) -> bool:
        for seed in (settings.seed, settings.seed + 1):
            count[0] += 1
            answer = call_in_kernel(ex, i, run, settings, token, (source, seed, count[0]))
            if answer.status != "passed" or not run.usable():
                return False
        return True

    return passes


def call_in_kernel(
    ex, i: int, run: KernelRun, settings: Settings, token: str, edit: tuple | None = None
) -> Verdict:
    """Call the learner's object on the probes in the kernel and judge the results; status "cut"
    when the results file is not whole, "died" when the kernel did not survive the call.
    ``edit``: (an edited definition of the object, the seed, a number): the call runs that
    definition instead, in a copy of the kernel's namespace (judging/lines.py)."""
    name = target_name(ex)
    source, seed, k = edit or (None, settings.seed, 0)
    probes = make_probes(ex, seed)
    # a fresh kernel re-runs the call under new names: files are never reused
    suffix = f"-edit{k}" if edit else ""
    probes_name = f"probes-{i}-{run.starts}{suffix}.pt"
    out_name = f"results-{i}-{run.starts}{suffix}.pt"
    probes_path, out_path = run.private / probes_name, run.private / out_name
    # through the folder's descriptor: a rename of the folder or a link planted in its place
    # is not followed (the kernel can write here)
    try:
        with new_private_file(run.private_fd, probes_name) as f:
            torch.save([probe_fields(p) for p in probes], f)
    except OSError as exc:
        if not slot_disk.no_room(exc):
            raise
        full = slot_disk.full_message(str(run.slot.folder)) or "its folder is full"
        return problem_verdict(
            "not_graded", error=f"{full}, so the grader could not write its inputs"
        )
    namespace = "(lambda: None).__globals__"
    if source is not None:
        namespace = f"(lambda ns: (exec({source!r}, ns), ns)[1])(dict({namespace}))"
    call = (
        f"_course_grader_{token}['grade']({kernel_task(ex)!r}, {name!r}, {str(probes_path)!r}, "
        f"{str(out_path)!r}, {settings.device!r}, {namespace})"
    )
    limit = settings.cell_timeout if source is None else min(settings.cell_timeout, lines.CALL_S)
    result = run.run_code(f"probe:{ex.id}", call, limit)
    if result.status == "died" and (memory := run.memory_verdict()):
        return problem_verdict("died_memory", name=name, memory=memory)
    if result.status in ("died", "timeout"):
        return problem_verdict(result.status, name=name, seconds=settings.cell_timeout)
    run.faults.written(f"results:{ex.id}", out_path)
    return judge_limited(ex, probes, run, out_name, settings)


def set_up_in_kernel(run: KernelRun, token: str, settings: Settings) -> CellRun:
    """Load the grader's code into the kernel; the run of its setup cell."""
    release, setup = bootstrap_code(token, watch=not run.slot.confined)
    freed = run.run_code("release", release, settings.cell_timeout)
    if freed.status in ("timeout", "died"):
        return freed
    return run.run_code("setup", setup, settings.cell_timeout)


@functools.cache
def _kernel_code() -> str:
    return base64.b64encode(json.dumps(CHECK_SOURCES).encode()).decode()


def bootstrap_code(token: str, watch: bool = True) -> tuple[str, str]:
    """Two cells: free what the last exception holds, then set the grader up in the kernel
    with the kernel side of the checks (``helpers/checks/run/``); ``watch``: look for calls of
    the reference blocks (only an unconfined kernel can reach them)."""
    payload = base64.b64encode(KERNEL_SIDE_SOURCE.encode()).decode()
    sources = _kernel_code()
    references = str(BLOCKS) if watch else None
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
        f"references={references!r})\n"
    )
    return release, setup
