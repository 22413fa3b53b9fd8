"""The job slots of a batch: a folder each, and a sandboxed zygote each when kernels are
preloaded; a slot is handed out once its zygote has imported the package's view, and recycled
(every process the submission left killed, the folder emptied) before the next submission."""

from __future__ import annotations

import os
import signal
import tempfile
from pathlib import Path

from ..records import Settings
from . import cgroup, kernel_view, sandbox, scratch, slot_disk, watchdog
from .environment import kernel_env
from .kernel_run import Slot
from .zygote import Zygote


def kill_group(pid: int) -> None:
    try:
        if os.getpgid(pid) == pid:
            os.killpg(pid, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def watch(dog: watchdog.Watchdog | None, slot: Slot, key: str, memory_bytes: int, **who) -> None:
    """Hold the slot's processes (``who``: watchdog.Watchdog.watch's ``root`` and ``spare``, or
    ``uid``) to the slot's memory, its tmpfs and its sandbox's /dev/shm included."""
    if dog is not None:
        dog.watch(
            key,
            cgroup.slot_memory(memory_bytes),
            str(slot.memory_report),
            files=(str(slot.folder),) if slot.disk else (),
            sandboxed=slot.view_bound,  # a bwrap sandbox: its /dev/shm is the slot's own
            **who,
        )


class Slots:
    """The job slots: a folder each, and a sandboxed zygote each when kernels are preloaded."""

    def __init__(self, jobs: int, settings: Settings, kind: str, preload: bool):
        self.settings, self.kind, self.preload = settings, kind, preload
        self.root = Path(tempfile.mkdtemp(prefix="grade-", dir=settings.workdir)).resolve()
        self.free: list[Slot] = []
        self.starting: list[Slot] = []  # their zygote still imports: not handed out yet
        self.all: dict[Path, Slot] = {}  # folder -> its slot, free or not
        self.restarts: list[str] = []  # why a slot's sandbox had to be made again
        self.leftovers: list[str] = []  # what a submission left that could not be removed
        self.disk = slot_disk.available(settings.workdir)  # a tmpfs per slot (else one note)
        self.watchdog = watchdog.Watchdog() if settings.memory_bytes > 0 else None
        try:
            for i in range(jobs):
                folder = self.root / f"slot-{i}"
                folder.mkdir()
                if self.disk:
                    slot_disk.mount(str(folder))
                self._make(folder)
        except BaseException:
            self.close()
            raise

    def _prefix(self, folder: Path, as_pid_1: bool) -> list[str] | None:
        if self.kind != "bwrap":
            return None
        prefix = sandbox.bwrap_command(
            str(folder),
            hidden=self.settings.hidden,
            device=self.settings.device,
            as_pid_1=as_pid_1,
            package=str(self._view(folder) / "helpers"),
        )
        # the slot's tasks, CPU share and memory as a group, where the host can (cgroup.py)
        return cgroup.limit(prefix, str(folder), self.settings.memory_bytes)

    def _view(self, folder: Path) -> Path:
        """The slot's view of the package (kernel_view.py): beside its folder, not inside."""
        return self.root / f"view-{folder.name}"

    def _make(self, folder: Path) -> Slot:
        zygote = None
        view = self._view(folder)
        kernel_view.fill(view, None)  # no blocks at all until a submission's notebook is known
        unconfined = str(view) if self.kind != "bwrap" else None
        if self.preload:
            env = dict(kernel_env(str(folder / ".zygote"), 1, unconfined), MPLBACKEND="agg")
            zygote = Zygote(
                env,
                sandbox=self._prefix(folder, True),
                cwd=str(folder),
                python=sandbox.executable(),
            )
        slot = Slot(
            folder,
            zygote=zygote,
            sandbox=self._prefix(folder, False),
            view=view,
            view_bound=self.kind == "bwrap",
            disk=self.disk,
            memory_report=self.root / f"memory-{folder.name}",
        )
        self.all[folder] = slot
        if zygote is not None:  # bwrap and the sandbox's PID 1, the zygote, are spared
            self._watch(slot, folder.name, zygote.pid, spare=2 if zygote.sandboxed else 1)
        (self.starting if zygote else self.free).append(slot)

    def _watch(self, slot: Slot, key: str, root: int, spare: int) -> None:
        watch(self.watchdog, slot, key, self.settings.memory_bytes, root=root, spare=spare)

    def watch_kernel(self, slot: Slot, pid: int) -> None:
        """A kernel started as a process of its own in ``slot`` (no zygote, or a fallback)."""
        self._watch(slot, f"{slot.folder.name}-{pid}", pid, spare=0)

    def promote(self) -> None:
        """Free the starting slots whose zygote is ready (this reads its message)."""
        for slot in [s for s in self.starting if s.zygote.ready()]:
            self.starting.remove(slot)
            self.free.append(slot)

    def take(self) -> Slot | None:
        """A free slot whose zygote is ready (a worker fills its view at once), or None."""
        self.promote()
        return self.free.pop(0) if self.free else None

    def waitables(self) -> list:
        """What becomes readable when a starting slot may be ready."""
        return [s.zygote.replies for s in self.starting]

    def recycle(self, slot: Slot, kernels: list[int]) -> None:
        """End all the last submission left running, empty the folder, free the slot."""
        for pid in kernels:  # kernels started as processes of their own
            kill_group(pid)
            if self.watchdog is not None:
                self.watchdog.unwatch(f"{slot.folder.name}-{pid}")
        watchdog.forget(slot.memory_report)
        if slot.zygote is not None:
            try:
                slot.zygote.reset()
            except RuntimeError as exc:  # stuck or gone: a new sandbox and zygote for this slot
                self.restarts.append(str(exc))
                slot.zygote.close()
                scratch.empty(slot.folder)
                self._make(slot.folder)  # free once its zygote is ready
                return
        left = scratch.empty(slot.folder)
        if left:  # the next submission gets a new work folder all the same
            self.leftovers.append(f"{', '.join(left)} in {slot.folder}")
        self.free.append(slot)

    def close(self) -> None:
        for slot in self.all.values():
            if slot.zygote is not None:
                slot.zygote.close()
            cgroup.release(str(slot.folder))
        for folder in self.root.glob("slot-*") if self.disk else ():
            scratch.empty(folder)
            slot_disk.unmount(str(folder))
        if self.watchdog is not None:
            self.watchdog.close()
        scratch.remove(self.root)
