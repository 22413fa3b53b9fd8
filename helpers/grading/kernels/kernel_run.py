"""One submission's kernel: the slot it runs in, the learner's cells run under the notebook's
limits, and the fresh kernel that re-runs the cells that completed when a limit, an interrupt
or a death struck the first (a kernel so struck is never trusted again)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..limits import CELL_BUDGET, MAX_STARTS
from ..reading.submissions import code_cells
from ..records import Settings
from . import cgroup, sandbox, watchdog
from .faults import Injector
from .kernel import CellRun, Kernel


@dataclass
class Slot:
    """Where a submission runs: ``folder`` (the sandbox's only writable folder, emptied between
    submissions), the slot's ``zygote`` (None: each kernel is a new process), ``sandbox``,
    the ``bwrap ... --`` prefix for a kernel started as a new process (None: unconfined), and
    ``view``, the folder of the package the kernels see (kernel_view.py), outside ``folder``;
    ``view_bound``: the sandbox shows ``view`` in the package's place (else the kernel imports
    it from ``view``); ``disk``: ``folder`` is a tmpfs of its own (slot_disk.py);
    ``memory_report``: where the memory watchdog says why it ended the slot's processes."""

    folder: Path
    zygote: object | None = None
    sandbox: list[str] | None = None
    view: Path | None = None
    view_bound: bool = False
    disk: bool = False
    memory_report: Path | None = None

    @property
    def confined(self) -> bool:
        return self.sandbox is not None or bool(self.zygote and self.zygote.sandboxed)

    @property
    def package_root(self) -> str | None:
        """Where the kernel imports ``helpers`` from, unless the sandbox binds it in place."""
        return str(self.view) if self.view and not self.view_bound else None


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
        self.cell_seconds = 0.0  # the learner's cells, in every kernel: CELL_BUDGET bounds it
        self.notebook_seconds = 0.0
        self.output_capped = False
        self.sound = False  # no limit, interrupt or death struck the kernel since it started
        self.replayed: list[str] = []  # why each fresh kernel was started (notes for the learner)
        self.faults = Injector()  # none, except in the tests (faults.py)
        self.private_fd = -1  # the grader's descriptor of ``private``: every access goes by it
        self.oom_before = cgroup.oom_kills(str(slot.folder))  # the slot's, before this one

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
            "package_root": slot.package_root,
            "private_fd": self.private_fd if self.private_fd >= 0 else None,
        }
        if slot.zygote is not None:
            try:
                self.kernel = Kernel(
                    str(self.workdir), zygote=slot.zygote, ipc=slot.zygote.sandboxed, **limits
                )
            except Exception as exc:  # fall back to a kernel of its own (sandboxed alike)
                self.fallback = f"{type(exc).__name__}: {exc}"
        if self.kernel is None:
            self.kernel = self._own_kernel(limits)
        self.sound = True
        return self.kernel

    def _own_kernel(self, limits: dict) -> Kernel:
        """A kernel as a process of its own; a sandbox that cannot start is tried once more
        (a classmate's kernel may have held what it needs), then its reason is the error."""
        for attempt in (1, 2):
            try:
                kernel = Kernel(
                    str(self.workdir), sandbox=self.slot.sandbox, on_start=self.on_kernel, **limits
                )
                return kernel
            except RuntimeError:
                why = sandbox.start_problem(self.slot.sandbox) if self.slot.sandbox else ""
                if not why:
                    raise
                if attempt == 2:
                    raise RuntimeError(f"the sandbox could not start, twice: {why}") from None
                time.sleep(2)

    def run_code(self, point: str, code: str, timeout: float) -> CellRun:
        """Run ``code`` in the kernel (``point`` names it for faults.py); a time limit or a death
        makes the kernel unsound: what the interrupt left half done is never relied on."""
        run = self.faults.run(self.kernel, point, code, timeout)
        if run.status in ("timeout", "died"):
            self.sound = False
        return run

    def close(self) -> None:
        if self.kernel is not None:
            self.output_capped |= self.kernel.output_capped
            self.kernel.close()
            self.kernel = None

    def memory_verdict(self) -> str:
        """Why the slot's processes were ended for memory ("" if they were not): by the
        watchdog (watchdog.py), or by the out-of-memory killer of the slot's cgroup."""
        said = watchdog.verdict(self.slot.memory_report)
        if said or cgroup.oom_kills(str(self.slot.folder)) <= self.oom_before:
            return said
        limit = cgroup.slot_memory(self.settings.memory_bytes) / 2**30
        return (
            "the notebook's processes reached the memory limit of "
            f"{limit:.2f} GiB for all the processes of one submission (its cgroup ended one)"
        )

    def cell_label(self, pos: int) -> str:
        return f"cell {self.cells[pos][0] + 1}"

    def point(self, pos: int) -> str:
        return f"cell:{self.cells[pos][0] + 1}"  # as faults.py names it

    def budget(self) -> float:
        """Seconds left for the learner's cells in this kernel: the notebook's limit, and no
        more than what is left of CELL_BUDGET times it over all the kernels of the submission."""
        total = self.settings.total_timeout
        return max(0.0, min(total, CELL_BUDGET * total - self.cell_seconds))

    def execute(self) -> None:
        """Run the learner's cells until the end, a timeout or a dead kernel."""
        s = self.settings
        self.start()
        start = time.monotonic()
        deadline = start + self.budget()
        for pos, (_, cell) in enumerate(self.cells):
            remaining = deadline - time.monotonic()
            limit = min(s.cell_timeout, remaining)
            run = (
                self.run_code(self.point(pos), cell.source, limit)
                if remaining > 0
                else CellRun("timeout", alive=True)
            )
            if run.status == "error":
                self.errors[pos] = run
            elif run.status in ("timeout", "died"):
                self.stop = (pos, run, self.why_stopped(pos, run, limit))
                break
        self.notebook_seconds = time.monotonic() - start
        self.cell_seconds += self.notebook_seconds

    def why_stopped(self, pos: int, run: CellRun, limit: float) -> str:
        s = self.settings
        if run.status == "died":
            where = self.cell_label(pos)
            memory = self.memory_verdict()
            if memory:
                return f"the kernel died in {where}: {memory}"
            return f"the kernel died in {where} (os._exit, a crash, or out of memory)"
        if limit < s.cell_timeout:
            return f"the notebook ran over its time limit of {s.total_timeout:g} s"
        return f"{self.cell_label(pos)} ran over the time limit of {s.cell_timeout:g} s per cell"

    def replay(self) -> bool:
        """A fresh kernel that re-runs the cells that completed (those before the stop), under
        the notebook's limits. If one of them now stops too, that is the stop (a real timeout or
        death, in the notebook's own cells) and the cells before it are re-run, in a new kernel
        again: at most ``MAX_STARTS`` kernels in all."""
        s = self.settings
        while self.starts < MAX_STARTS:
            end = self.stop[0] if self.stop else len(self.cells)
            self.start()
            began = time.monotonic()
            budget = self.budget()
            deadline = began + budget
            stopped = False
            for pos in range(end):
                remaining = deadline - time.monotonic()
                limit = min(s.cell_timeout, remaining)
                source = self.cells[pos][1].source
                run = (
                    self.run_code(self.point(pos), source, limit)
                    if remaining > 0
                    else CellRun("timeout")
                )
                if run.status in ("timeout", "died"):
                    why = self.why_stopped(pos, run, limit)
                    if budget < s.total_timeout and limit < s.cell_timeout:
                        bound = CELL_BUDGET * s.total_timeout
                        why = (
                            f"{self.cell_label(pos)} reached the bound of {bound:g} s on one "
                            f"submission's cells, re-runs included ({CELL_BUDGET:g} times the "
                            "notebook's limit)"
                        )
                    self.stop = (pos, run, f"{why} when the grader re-ran it in a fresh kernel")
                    stopped = True
                    break
            self.cell_seconds += time.monotonic() - began
            if not stopped:
                if end:
                    self.replayed.append(f"the cells up to cell {self.cells[end - 1][0] + 1}")
                return True
        self.close()
        return False

    def usable(self) -> bool:
        """Whether the kernel is sound (alive, and no limit or death has struck it since it
        started), after a replay in a fresh kernel if need be."""
        if self.sound and self.kernel is not None and self.kernel.alive():
            return True
        return self.replay()
