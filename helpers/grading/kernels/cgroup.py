"""Each sandbox's share of the machine, as a group: its tasks capped, its CPU weighed equally
with the other slots', its memory capped as a whole.

Each sandbox (a batch's slot: its zygote and every kernel forked from it; or a submission's own
kernel) runs in a cgroup of its own, made for these controllers where the host allows them:

- ``pids``: at most ``TASKS_MAX`` tasks: a fork beyond it fails (``EAGAIN``, Python's
  ``BlockingIOError``) instead of filling the machine until the cell's time limit;
- ``cpu``: the same weight as every other slot (``cpu.weight`` 100, v1 ``cpu.shares`` 1024):
  a slot with 48 busy processes gets the CPU of one slot, not of 48, when slots compete;
- ``memory``: all the slot's processes together at most ``slot_memory`` (twice one kernel's
  memory limit: the kernel, the zygote, what the kernel starts); over it, the kernel's own
  out-of-memory killer ends one of them (the kernel dies: its cells are re-run as for any
  crash), never a process outside the slot.

What the host allows is found once (``method``), in this order:

1. cgroup v2 whose controllers are delegated to the grader's own cgroup (in that cgroup's
   ``cgroup.subtree_control``): one child cgroup per sandbox, with the controllers delegated;
2. cgroup v1's hierarchies of these controllers, where writable (root, e.g. in a container):
   a child cgroup in each;
3. ``systemd-run --user --scope`` with ``TasksMax``, ``CPUWeight`` and ``MemoryMax``: a systemd
   user session makes the scope (it applies what the session's controllers allow).

Else (a v2 cgroup that is not delegated, no user session: most unprivileged shells and
containers) a sandbox has none of these; the guide says so, and a submission that timed out
beside busy neighbours is re-graded alone all the same (batch.py). The sandbox is entered by a
prefix to its command: ``/bin/sh`` writes its own pid to each group's ``cgroup.procs``, then
``exec``s bwrap, so everything the sandbox starts is counted. Linux only.
"""

from __future__ import annotations

import functools
import itertools
import os
import shutil
import subprocess
import time

from ..limits import SLOT_MEMORY_FACTOR, TASKS_MAX

ROOT = "/sys/fs/cgroup"
CONTROLLERS = ("pids", "cpu", "memory")
# what a sandbox's group sets, per controller: the file, and its value from the slot's memory
V2 = {"pids": "pids.max", "cpu": "cpu.weight", "memory": "memory.max"}
V1 = {"pids": "pids.max", "cpu": "cpu.shares", "memory": "memory.limit_in_bytes"}
JOIN = 'while [ "$1" != -- ]; do echo $$ > "$1/cgroup.procs" || exit 1; shift; done; '
JOIN += 'shift; exec "$@"'
# sh -c JOIN sh GROUP... -- COMMAND...
_groups: dict[str, list[str]] = {}  # sandbox folder -> its cgroup folders (made by this process)
_numbers = itertools.count()  # not len(_groups): a released group's number may still be taken


def slot_memory(memory_bytes: int) -> int:
    """Bytes all the processes of one sandbox may hold together (0: no cap)."""
    return SLOT_MEMORY_FACTOR * memory_bytes


def _value(controller: str, kind: str, memory_bytes: int) -> str:
    if controller == "pids":
        return str(TASKS_MAX)
    if controller == "cpu":
        return "100" if kind == "v2" else "1024"  # the default: every slot alike
    cap = slot_memory(memory_bytes)
    return str(cap) if cap > 0 else ("max" if kind == "v2" else "-1")


def _own(controller: str) -> str | None:
    """This process's cgroup path in the v1 hierarchy of ``controller`` ("" for v2)."""
    try:
        with open("/proc/self/cgroup") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in lines:
        _, names, path = line.split(":", 2)
        if controller in names.split(","):
            return path
    return None


def _try_parent(parent: str, files: list[tuple[str, str]]) -> str:
    """ "" when a child cgroup setting ``files`` can be made under ``parent``, else why not."""
    probe = os.path.join(parent, f"course-grader-probe-{os.getpid()}")
    try:
        os.mkdir(probe)
        try:
            for name, value in files:
                with open(os.path.join(probe, name), "w") as f:
                    f.write(value)
        finally:
            os.rmdir(probe)
    except OSError as exc:
        return f"{parent} is not writable ({exc.strerror})"
    return ""


def _v2() -> tuple[dict[str, str], str]:
    """{controller: parent} for the delegated v2 controllers, or why there are none."""
    own = _own("")
    if own is None or not os.path.exists(os.path.join(ROOT, "cgroup.controllers")):
        return {}, ""
    parent = os.path.normpath(ROOT + own)
    try:
        with open(os.path.join(parent, "cgroup.subtree_control")) as f:
            delegated = [c for c in CONTROLLERS if c in f.read().split()]
    except OSError:
        delegated = []
    if not delegated:
        return {}, "cgroup v2: no controller is delegated to its cgroup"
    problem = _try_parent(parent, [(V2[c], _value(c, "v2", 2**30)) for c in delegated])
    if problem:
        return {}, f"cgroup v2: {problem}"
    return dict.fromkeys(delegated, parent), ""


def _v1() -> tuple[dict[str, str], list[str]]:
    """{controller: parent} for the writable v1 hierarchies, and why the others are not."""
    found: dict[str, str] = {}
    why: list[str] = []
    for c in CONTROLLERS:
        own = _own(c)
        if own is None or not os.path.isdir(os.path.join(ROOT, c)):
            continue
        parent = os.path.normpath(os.path.join(ROOT, c) + own)
        problem = _try_parent(parent, [(V1[c], _value(c, "v1", 2**30))])
        if problem:
            why.append(f"cgroup v1 {c}: {problem}")
        else:
            found[c] = parent
    return found, why


def _systemd_run(memory_bytes: int) -> list[str]:
    cap = slot_memory(memory_bytes)
    memory = ["-p", f"MemoryMax={cap}"] if cap > 0 else []
    return [
        "systemd-run", "--user", "--scope", "--quiet",
        "-p", f"TasksMax={TASKS_MAX}", "-p", "CPUWeight=100", *memory,
    ]  # fmt: skip


@functools.cache
def method() -> tuple[str, dict[str, str], str]:
    """(kind, {controller: parent folder}, why not more): ("v2" | "v1", the controllers found,
    why the others are missing), ("systemd", {}, "") or ("none", {}, why nothing here)."""
    if not os.path.isdir(ROOT):
        return "none", {}, f"no {ROOT} (not Linux, or no cgroups mounted)"
    found, problem = _v2()
    if found:
        return "v2", found, ""
    why = [problem] if problem else []
    found, problems = _v1()
    if found:
        return "v1", found, "; ".join(problems)
    why += problems
    if shutil.which("systemd-run"):
        cmd = [*_systemd_run(2**30), "true"]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
            if done.returncode == 0:
                return "systemd", {}, ""
            why.append(f"systemd-run --user: {(done.stderr.strip() or 'failed')[:120]}")
        except (OSError, subprocess.TimeoutExpired) as exc:
            why.append(f"systemd-run --user: {exc}")
    return "none", {}, "; ".join(why) or "no cgroup controller"


def _make(parents: dict[str, str], kind: str, memory_bytes: int) -> list[str]:
    """The sandbox's groups, one per parent folder, each with its controllers' values."""
    name = f"course-grader-{os.getpid()}-{next(_numbers)}"
    files = V2 if kind == "v2" else V1
    groups = []
    try:
        for parent in dict.fromkeys(parents.values()):  # v2: one parent for all
            group = os.path.join(parent, name)
            os.mkdir(group)
            groups.append(group)
            for c in (c for c, p in parents.items() if p == parent):
                with open(os.path.join(group, files[c]), "w") as f:
                    f.write(_value(c, kind, memory_bytes))
    except OSError:
        for group in groups:
            _remove(group, 0)
        return []
    return groups


def limit(prefix: list[str] | None, folder: str, memory_bytes: int = 0) -> list[str] | None:
    """The sandbox's ``bwrap ... --`` prefix run in a cgroup of its own (one per ``folder``)
    where the host allows it (see ``method``); ``prefix`` as given otherwise (None: unconfined,
    left alone). ``memory_bytes``: one kernel's memory limit (``slot_memory``)."""
    if not prefix:
        return prefix
    kind, parents, _ = method()
    if kind == "systemd":
        return [*_systemd_run(memory_bytes), "--", *prefix]
    if kind == "none":
        return prefix
    groups = _groups.get(folder)
    if groups is None:
        groups = _make(parents, kind, memory_bytes)
        if not groups:
            return prefix
        _groups[folder] = groups
    return ["/bin/sh", "-c", JOIN, "sh", *groups, "--", *prefix]


def _remove(group: str, wait: float) -> None:
    deadline = time.monotonic() + wait
    while True:
        try:
            os.rmdir(group)
            return
        except FileNotFoundError:
            return
        except OSError:
            if time.monotonic() > deadline:
                return
            time.sleep(0.05)


def oom_kills(folder: str) -> int:
    """How many processes the out-of-memory killer has ended in ``folder``'s cgroups so far."""
    total = 0
    for group in _groups.get(folder, []):
        for name in ("memory.events", "memory.oom_control"):  # v2, v1
            try:
                with open(os.path.join(group, name)) as f:
                    lines = f.read().splitlines()
            except OSError:
                continue
            total += sum(int(line.split()[1]) for line in lines if line.startswith("oom_kill "))
    return total


def release(folder: str, wait: float = 10.0) -> None:
    """Remove ``folder``'s cgroups once its processes are gone (they are being killed)."""
    for group in _groups.pop(folder, []):
        _remove(group, wait)
