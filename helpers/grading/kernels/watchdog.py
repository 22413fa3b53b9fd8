"""A slot's memory as a whole, held without cgroups: a watchdog process sums what a submission's
processes hold and ends them past the slot's limit.

``RLIMIT_DATA`` (limits.py) bounds one process's private memory; it does not count shared
memory (``mmap(MAP_SHARED | MAP_ANONYMOUS)``, ``memfd_create``, files in ``/dev/shm``), nor
the sum over a submission's processes. Where the host gives a memory cgroup, the cgroup bounds
both (cgroup.py); everywhere, this watchdog does too, and says what happened:

- every ``POLL`` seconds (``NEAR`` once the slot is past half its limit) it reads, for each
  process of each slot watched (the descendants of the slot's sandbox, where orphans are
  re-parented to the sandbox's PID 1; or every process of the slot's own uid), the resident
  anonymous and shared memory (``/proc/PID/status``: cheap, and an upper bound: pages shared
  between a zygote and its kernels count twice), the shared-memory files the processes hold
  open (memfd, ``/dev/shm``, counted once per file), and the bytes of the slot's own file
  systems (``files``: its tmpfs folder, the sandbox's ``/dev/shm``);
- past the limit by that bound, it measures again with ``/proc/PID/smaps_rollup``'s
  proportional set size (shared pages divided among their sharers) and, past it still, sends
  SIGKILL to the process the kernel's out-of-memory killer would pick (never those it spares:
  the sandbox itself, the slot's zygote), one per look until the slot is under its limit, and
  writes why to the slot's ``report`` file, which the grader reads when the kernel has died
  (kernel_run.py) and adds to the submission's notes.

Run as a script (``python -I watchdog.py``), standard library only: it imports nothing of the
grader, and starts in milliseconds. Requests arrive as JSON lines on its stdin; it ends when
stdin closes (the grader ended). Linux only (``/proc``).
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys

POLL, NEAR = 0.05, 0.01  # seconds between two looks: far from the limit, and near it
GiB = 2**30


# --------------------------------------------------------------------------- the grader's side


class Watchdog:
    """The grader's handle on one watchdog process."""

    def __init__(self):
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-S", os.path.abspath(__file__)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C for the grader is the grader's to handle
        )

    def _send(self, request: dict) -> None:
        try:
            self.proc.stdin.write((json.dumps(request) + "\n").encode())
            self.proc.stdin.flush()
        except (OSError, ValueError):  # it has ended: nothing is watched (the cgroup may be)
            pass

    def watch(
        self,
        key: str,
        limit: int,
        report: str,
        *,
        root: int | None = None,
        uid: int | None = None,
        spare: int = 0,
        files: tuple[str, ...] = (),
        sandboxed: bool = False,
    ) -> None:
        """Watch ``root`` and its descendants (or every process of ``uid``) under ``limit``
        bytes; ``spare``: how many levels of the tree are never ended (2 for a sandbox: bwrap
        and the sandbox's PID 1, the slot's zygote where it has one); ``sandboxed``: ``root``
        is a bubblewrap sandbox (its ``/dev/shm`` counts)."""
        request = {"op": "watch", "key": key, "limit": limit, "report": report}
        where = {"root": root, "uid": uid, "spare": spare, "files": files, "sandboxed": sandboxed}
        self._send({**request, **where})

    def unwatch(self, key: str) -> None:
        self._send({"op": "unwatch", "key": key})

    def close(self) -> None:
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def verdict(report: str | os.PathLike | None) -> str:
    """What the watchdog wrote to ``report`` ("" if it ended nothing)."""
    if not report:
        return ""
    try:
        with open(report, encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return ""


def forget(report: str | os.PathLike | None) -> None:
    """Remove a report before the slot's next submission."""
    if report:
        try:
            os.unlink(report)
        except OSError:
            pass


# --------------------------------------------------------------------------- the watchdog


def _read(path: str) -> str:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return ""
    try:
        return os.read(fd, 1 << 16).decode("ascii", "replace")
    except OSError:
        return ""
    finally:
        os.close(fd)


def _fields(text: str, names: tuple[str, ...]) -> int:
    """The sum, in bytes, of the ``name: N kB`` lines named."""
    total = 0
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        if name in names:
            total += int(rest.split()[0]) * 1024
    return total


def descendants(root: int) -> list[tuple[int, int]]:
    """(pid, depth) of ``root`` (depth 0) and of every process below it (through each
    thread's ``children``)."""
    found, todo = [], [(root, 0)]
    while todo:
        pid, depth = todo.pop()
        found.append((pid, depth))
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            children = _read(f"/proc/{pid}/task/{tid}/children").split()
            todo += [(int(c), depth + 1) for c in children]
    return found


def _uid_of(pid: str) -> int | None:
    for line in _read(f"/proc/{pid}/status").splitlines():
        if line.startswith("Uid:"):
            return int(line.split()[1])
    return None


def members(watch: dict) -> list[tuple[int, int]]:
    """(pid, depth) of the slot's processes (depth 0 for all of a uid's)."""
    if watch.get("uid") is not None:
        procs = [p for p in os.listdir("/proc") if p.isdigit()]
        return [(int(p), 0) for p in procs if _uid_of(p) == watch["uid"]]
    return descendants(watch["root"])


def _shared_files(pid: int, seen: set) -> int:
    """Bytes of the shared-memory files ``pid`` holds open that no earlier process held."""
    total = 0
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return 0
    for fd in fds:
        path = f"/proc/{pid}/fd/{fd}"
        try:
            target = os.readlink(path)
            if not target.startswith("/memfd:"):  # files in /dev/shm: counted as ``files``
                continue
            st = os.stat(path)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            total += st.st_blocks * 512
    return total


def _files_used(paths, pids: list[int], sandboxed: bool) -> int:
    """Bytes used on the slot's own file systems: ``paths``, and with ``sandboxed`` the
    sandbox's private ``/dev/shm`` (seen through a process inside it)."""
    total = 0
    if sandboxed and len(pids) > 1:
        paths = [*paths, f"/proc/{pids[1]}/root/dev/shm"]
    for path in paths:
        try:
            st = os.statvfs(path)
            total += (st.f_blocks - st.f_bfree) * st.f_frsize
        except OSError:
            pass
    return total


def usage(pids: list[int], files, sandboxed: bool, precise: bool) -> int:
    """Bytes the processes hold: anonymous and shared memory (resident; with ``precise``, each
    page divided among its sharers), shared-memory files open, the slot's file systems."""
    names = ("Pss_Anon", "Pss_Shmem") if precise else ("RssAnon", "RssShmem")
    source = "smaps_rollup" if precise else "status"
    seen: set = set()
    total = _files_used(files, pids, sandboxed)
    for pid in pids:
        total += _fields(_read(f"/proc/{pid}/{source}"), names) + _shared_files(pid, seen)
    return total


def _oom_score_adj(pid: int) -> int:
    text = _read(f"/proc/{pid}/oom_score_adj").strip()
    return int(text) if text.lstrip("-").isdigit() else 0


def _look(watch: dict) -> float:
    """Check one slot; returns its use as a fraction of its limit. Past the limit, end the
    process the kernel's own out-of-memory killer would pick (its ``oom_score_adj``, then the
    most memory), one per look: a child that holds the memory goes, its kernel stays."""
    killed = watch.setdefault("killed", set())
    tree = [(pid, depth) for pid, depth in members(watch) if pid not in killed]
    pids = [pid for pid, _ in tree]
    where = watch["files"], watch.get("root") is not None and watch.get("sandboxed", False)
    used = usage(pids, *where, precise=False)
    if used <= watch["limit"]:
        return used / watch["limit"]
    used = usage(pids, *where, precise=True)
    if used <= watch["limit"]:
        return used / watch["limit"]
    victims = [
        (_oom_score_adj(pid), usage([pid], (), False, precise=True), pid)
        for pid, depth in tree
        if depth >= watch["spare"]
    ]
    if not victims:
        return 1.0
    _, held, pid = max(victims)
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        return 1.0
    killed.add(pid)
    watch["ended"] = watch.get("ended", 0) + 1
    text = (
        f"the notebook's processes held {used / GiB:.2f} GiB of memory together (shared "
        f"memory included), over the limit of {watch['limit'] / GiB:.2f} GiB for all the "
        "processes of one submission: the grader ended "
        + (f"{watch['ended']} of them, the largest first" if watch["ended"] > 1 else "the largest")
        + f" ({held / GiB:.2f} GiB)"
    )
    tmp = watch["report"] + ".tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text + "\n")
        os.replace(tmp, watch["report"])
    except OSError:
        pass
    return 1.0


def main() -> None:
    watched: dict[str, dict] = {}
    stdin = sys.stdin.buffer
    pending = b""
    interval = POLL
    while True:
        ready, _, _ = select.select([stdin], [], [], interval)
        if ready:
            chunk = os.read(stdin.fileno(), 1 << 16)
            if not chunk:  # the grader has ended
                return
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                try:
                    request = json.loads(line)
                except ValueError:
                    continue
                if request.get("op") == "watch" and request.get("limit", 0) > 0:
                    watched[request["key"]] = request
                else:
                    watched.pop(request.get("key"), None)
        nearest = max((_look(w) for w in watched.values()), default=0.0)
        interval = NEAR if nearest > 0.5 else POLL


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    main()
