"""Grade a batch: ``--jobs`` slots, each a sandbox with a zygote; one worker per submission.

The parent process (the only writer of the gradebook) hands each submission to a forked worker
process with a free slot, reads the worker's answer as JSON (nothing a pipe delivers is
unpickled), writes the rows as they arrive, and recycles the slot: every process the
submission started is killed (zygote.py) and the slot's folder emptied, before the next
submission gets it. At the end the gradebook is rewritten sorted (an atomic rename) and the
judge's source files are compared with what was loaded at the start.

Slots share the machine as groups (cgroup.py: equal CPU weight, a memory cap per slot, where
the host allows). A submission that ran over a time limit while another ran beside it is graded
again at the end, alone, before a timeout is recorded: a busy neighbour cannot cost it points,
with or without cgroups.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import replace
from multiprocessing.connection import wait
from pathlib import Path

import torch

from . import run as run_module
from .books.feedback import feedback_path
from .books.gradebook import Gradebook, in_order, read_rows
from .judging.judging import settle_draws
from .judging.sources import changed_sources
from .kernels import sandbox, scratch, slot_disk
from .kernels.kernel_run import CELL_BUDGET, MAX_STARTS, Slot
from .kernels.pipe import recv_plain, send_plain
from .kernels.slots import Slots, kill_group
from .reading.submissions import exercises_of, find_submissions, problem_rows, read_limited
from .records import BatchResult, Graded, Settings, Submission, UsageError


def hard_limit(settings: Settings, sub: Submission) -> float:
    """Seconds after which the parent gives up on a worker (its own limits should act first)."""
    n = len(exercises_of(sub.notebook))
    starts = MAX_STARTS  # the first run of the cells, and re-runs in fresh kernels
    cells = CELL_BUDGET * settings.total_timeout  # over all of them (limits.CELL_BUDGET)
    return cells + (n + 2 * starts) * (settings.cell_timeout + 15) + 120  # probes, setups


def _worker(conn, sub: Submission, nb, settings: Settings, slot: Slot) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    # a forked process must not use OpenMP threads the parent may have started: judge on one
    torch.set_num_threads(1)
    try:
        graded = run_module.grade_submission(
            sub, settings, nb=nb, slot=slot, on_kernel=lambda pid: send_plain(conn, ["kernel", pid])
        )
        send_plain(conn, ["done", graded.to_plain()])
    except BaseException:
        try:
            send_plain(conn, ["crash", traceback.format_exc(limit=6)])
        except Exception:
            pass
    finally:
        conn.close()
        os._exit(0)


def _prepare(paths, out: Path, jobs: int, settings: Settings, resume: bool, log, select=None):
    """Check the arguments, find the submissions, keep rows for --resume, pick the sandbox."""
    if not out.parent.is_dir():
        raise UsageError(f"the folder of --out does not exist: {out.parent}")
    if jobs < 1:
        raise UsageError("--jobs must be at least 1")
    subs = find_submissions(paths)
    if select is not None:  # e.g. one shard of the batch (shard.py)
        subs = select(subs)
    kept = []
    if resume and out.exists():
        kept = read_rows(out, partial=True)
        done = {r.submission for r in kept}
        before = len(subs)
        subs = [s for s in subs if s.label not in done]
        log(
            f"--resume: keeping the rows of {before - len(subs)} submissions already in {out}; "
            f"grading {len(subs)}."
        )
    elif out.exists():
        log(f"overwriting {out} (use --resume to keep the submissions it already holds)")
    kind, warning = sandbox.resolve(settings.sandbox)
    problem = scratch.check_workdir(settings.workdir) if kind == "bwrap" else ""
    if problem:
        raise UsageError(problem)
    if subs and not slot_disk.available(settings.workdir):  # what the grader cannot bound here
        warning = "\n".join(filter(None, [warning, slot_disk.NOT_BOUNDED]))
    if warning:
        log(warning)
    return subs, kept, kind, warning


class _Batch:
    """The parent's loop: start workers on free slots, collect answers, enforce deadlines."""

    def __init__(self, subs, settings: Settings, slots: Slots, finish: Callable):
        self.pending, self.settings, self.slots, self.finish = list(subs), settings, slots, finish
        self.ctx = mp.get_context("fork" if sys.platform.startswith("linux") else "spawn")
        self.running: dict = {}  # connection -> worker state
        self.alone: list[Submission] = []  # timed out beside others: graded again, alone, last
        self.again: set[str] = set()  # the labels of those (each is graded again once)
        self.settled: set[str] = set()  # the notebooks whose inputs' draws are found here

    def _next(self) -> list[Submission]:
        """Where the next submission comes from: the queue, then (with nothing else running)
        the ones to grade again alone."""
        return self.pending or (self.alone if not self.running else [])

    def start_next(self) -> None:
        while self._next():
            slot = self.slots.take()
            if slot is None:
                return
            sub = self._next().pop(0)
            read_limited(sub)
            if sub.problem:
                self.slots.free.insert(0, slot)
                self.finish(
                    sub, Graded(problem_rows(sub, "error", sub.problem), notes=list(sub.notes))
                )
                continue
            if sub.notebook not in self.settled:  # once per notebook, before a worker forks
                self.settled.add(sub.notebook)
                settle_draws(exercises_of(sub.notebook), self.settings.seed)
            here, there = self.ctx.Pipe(duplex=False)
            proc = self.ctx.Process(  # the worker reads the notebook again, for itself
                target=_worker, args=(there, sub, None, self.settings, slot), daemon=True
            )
            proc.start()
            there.close()
            for state in self.running.values():
                state["crowded"] = True
            self.running[here] = {
                "proc": proc,
                "sub": sub,
                "slot": slot,
                "kernels": [],
                "deadline": time.monotonic() + hard_limit(self.settings, sub),
                "crowded": bool(self.running),  # another submission ran beside it at some time
            }

    def _done(self, state, graded: Graded) -> None:
        """Record a result; a timeout beside other submissions is graded again alone first
        (a neighbour may have taken its CPU), and the second result is the one recorded."""
        sub = state["sub"]
        timed_out = any(r.status == "timeout" for r in graded.rows)
        if timed_out and state["crowded"] and sub.label not in self.again:
            self.again.add(sub.label)
            self.alone.append(sub)
            return
        if sub.label in self.again:
            graded.notes.append(
                "Graded a second time, with no other submission running: the first time it ran "
                "over a time limit while other submissions were graded beside it."
            )
        self.finish(sub, graded)

    def collect(self) -> None:
        for conn in wait([*self.running, *self.slots.waitables()], timeout=1.0):
            state = self.running.get(conn)
            if state is None:  # a zygote has answered: read now, or the wait would not wait
                self.slots.promote()
                continue
            try:
                kind, payload = recv_plain(conn)
                graded = Graded.from_plain(payload) if kind == "done" else None
            except Exception:  # EOF (the worker died), or not the worker's JSON
                kind, payload = "crash", "the worker process ended without a result"
            if kind == "kernel":
                state["kernels"].append(int(payload))
                self.slots.watch_kernel(state["slot"], int(payload))
                continue
            self._end(conn, state)
            if kind == "done":
                self._done(state, graded)
            else:
                text = str(payload).strip()
                last = text.splitlines()[-1] if text else "?"
                self.finish(
                    state["sub"],
                    Graded(
                        problem_rows(
                            state["sub"], "error", f"the grader failed on this submission: {last}"
                        )
                    ),
                )

    def _end(self, conn, state, kill: bool = False) -> None:
        del self.running[conn]
        if kill:
            state["proc"].kill()
        state["proc"].join(5)
        conn.close()
        self.slots.recycle(state["slot"], state["kernels"])

    def enforce_deadlines(self) -> None:
        now = time.monotonic()
        for conn, state in list(self.running.items()):
            if now > state["deadline"]:
                self._end(conn, state, kill=True)
                limit = hard_limit(self.settings, state["sub"])
                self._done(
                    state,
                    Graded(
                        problem_rows(
                            state["sub"],
                            "timeout",
                            f"the grader gave up on this submission after {limit:.0f} s.",
                        )
                    ),
                )

    def loop(self) -> None:
        try:
            while self.pending or self.running or self.alone:
                self.start_next()
                self.collect()
                self.enforce_deadlines()
        finally:
            for state in list(self.running.values()):
                for pid in state["kernels"]:
                    kill_group(pid)
                state["proc"].kill()


class _Recorder:
    """What happens when a submission is done: its rows to the gradebook (on disk at once) and
    the result, its feedback file, the progress bar."""

    def __init__(self, book: Gradebook, result: BatchResult, fb_dir: Path | None, bar):
        self.book, self.result, self.fb_dir, self.bar = book, result, fb_dir, bar

    def __call__(self, sub: Submission, graded: Graded) -> None:
        from .books.feedback import feedback_markdown

        self.book.add(graded.rows)
        self.result.rows += graded.rows
        self.result.graded_now += 1
        if graded.seconds:
            self.result.worker_seconds.append(graded.seconds)
            self.result.notebook_seconds.append(graded.notebook_seconds)
        if self.fb_dir:
            text = feedback_markdown(sub, graded)
            try:
                feedback_path(self.fb_dir, sub.label).write_text(text, encoding="utf-8")
            except OSError as exc:  # that student's feedback file only; the batch goes on
                print(f"(grader) no feedback file for {sub.label!r}: {exc}", file=sys.stderr)
        if self.bar:
            self.bar.update(1)

    def close(self) -> None:
        self.book.close()
        if self.bar:
            self.bar.close()


def _wrap_up(result: BatchResult, book: Gradebook, log: Callable[[str], None]) -> None:
    """The gradebook rewritten sorted (atomically); the judge's files checked against the start."""
    result.rows = in_order(result.rows)
    book.finish(result.rows)
    result.tampered = changed_sources()
    if result.tampered:
        log(
            "ERROR: the grader's own source files changed during this run (the grades cannot "
            "be trusted): " + ", ".join(result.tampered)
        )


def grade_batch(
    paths: list[str | Path],
    out: str | Path,
    *,
    feedback: str | Path | None = None,
    jobs: int = 1,
    settings: Settings | None = None,
    resume: bool = False,
    progress: bool = True,
    log: Callable[[str], None] = print,
    select: Callable[[list[Submission]], list[Submission]] | None = None,
) -> BatchResult:
    """Grade every submission under ``paths`` into the CSV ``out`` (see the module docstring);
    ``select`` picks which of the submissions found to grade (``--shard``)."""
    settings, out = settings or Settings(), Path(out)
    subs, kept, kind, warning = _prepare(paths, out, jobs, settings, resume, log, select)
    fb_dir = Path(feedback) if feedback else None
    if fb_dir:
        fb_dir.mkdir(parents=True, exist_ok=True)
    # what no sandbox may show, wherever it lies: the inputs, the gradebook's and feedback's folders
    hidden = [*map(str, paths), str(out.resolve().parent), *([str(fb_dir)] if fb_dir else [])]
    settings = replace(settings, hidden=[*settings.hidden, *hidden])
    import jupyter_client  # noqa: F401  (imported once here: forked workers inherit it)
    import nbformat  # noqa: F401

    book = Gradebook(out, kept)
    result = BatchResult(
        rows=list(kept),
        submissions=len(subs) + len({r.submission for r in kept}),
        graded_now=0,
        seconds=0.0,
        sandbox=kind,
        warnings=[warning] if warning else [],
    )
    start = time.monotonic()
    record = _Recorder(book, result, fb_dir, _progress_bar(len(subs)) if progress else None)
    preload = settings.preload and sys.platform.startswith("linux")
    slots = Slots(jobs, settings, kind, preload) if subs else None
    try:
        if slots:
            _Batch(subs, settings, slots, record).loop()
    finally:
        record.close()
        if slots:
            slots.close()
            if slots.restarts:  # a submission broke its sandbox (or the grader has a bug): say so
                result.warnings.append(
                    f"(grader) {len(slots.restarts)} sandboxes were restarted between submissions "
                    f"(first: {slots.restarts[0]})"
                )
            if slots.leftovers:
                result.warnings.append(
                    f"(grader) {len(slots.leftovers)} times a submission left files the grader "
                    f"could not remove (first: {slots.leftovers[0]})"
                )
    _wrap_up(result, book, log)
    result.seconds = time.monotonic() - start
    return result


def _progress_bar(total: int):
    from tqdm import tqdm

    tqdm.monitor_interval = 0  # no monitor thread in a process that forks
    return tqdm(total=total, unit="notebook", file=sys.stderr, dynamic_ncols=True)
