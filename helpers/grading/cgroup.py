"""A cap on the tasks (processes and threads) of each sandbox: a fork bomb stops at it.

Each sandbox (a batch's slot: its zygote and every kernel forked from it; or a submission's own
kernel) runs in a cgroup of its own whose ``pids.max`` is ``TASKS_MAX``: a fork beyond it fails
(``EAGAIN``, Python's ``BlockingIOError``) instead of filling the machine until the cell's time
limit. What the host allows is found once, in this order:

1. cgroup v2 with the ``pids`` controller delegated to the grader's own cgroup (it is in that
   cgroup's ``cgroup.subtree_control``): one child cgroup per sandbox;
2. cgroup v1's ``pids`` hierarchy, writable (root, e.g. in a container): the same, there;
3. ``systemd-run --user --scope -p TasksMax=N``: a systemd user session makes the scope.

Else (a v2 cgroup that is not delegated, no user session: most unprivileged shells and
containers) the sandboxes have no such cap; the README says so. The sandbox is entered by a
prefix to its command: ``/bin/sh`` writes its own pid to the group's ``cgroup.procs``, then
``exec``s bwrap, so everything the sandbox starts is counted. Linux only.
"""

from __future__ import annotations

import functools
import itertools
import os
import shutil
import subprocess
import time

TASKS_MAX = 1024  # per sandbox: a kernel has ~10 threads; tests start 200 sleeping children
ROOT = "/sys/fs/cgroup"
JOIN = 'echo $$ > "$0/cgroup.procs" && exec "$@"'  # sh -c JOIN GROUP COMMAND...
_groups: dict[str, str] = {}  # sandbox folder -> its cgroup folder (made by this process)
_numbers = itertools.count()  # not len(_groups): a released group's number may still be taken


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


def _try_parent(parent: str) -> str:
    """ "" when a child cgroup with pids.max can be made under ``parent``, else why not."""
    probe = os.path.join(parent, f"course-grader-probe-{os.getpid()}")
    try:
        os.mkdir(probe)
        try:
            with open(os.path.join(probe, "pids.max"), "w") as f:
                f.write("8")
        finally:
            os.rmdir(probe)
    except OSError as exc:
        return f"{parent} is not writable ({exc.strerror})"
    return ""


@functools.cache
def method() -> tuple[str, str, str]:
    """(kind, where, why): ("v2" | "v1", parent folder, "") or ("systemd", "", "") or
    ("none", "", why the tasks are not capped here)."""
    if not os.path.isdir(ROOT):
        return "none", "", f"no {ROOT} (not Linux, or no cgroups mounted)"
    why = []
    v2 = _own("") if os.path.exists(os.path.join(ROOT, "cgroup.controllers")) else None
    if v2 is not None:
        parent = os.path.normpath(ROOT + v2)
        try:
            with open(os.path.join(parent, "cgroup.subtree_control")) as f:
                delegated = "pids" in f.read().split()
        except OSError:
            delegated = False
        problem = _try_parent(parent) if delegated else "pids is not delegated to its cgroup"
        if not problem:
            return "v2", parent, ""
        why.append(f"cgroup v2: {problem}")
    v1 = _own("pids")
    if v1 is not None and os.path.isdir(os.path.join(ROOT, "pids")):
        parent = os.path.normpath(os.path.join(ROOT, "pids") + v1)
        problem = _try_parent(parent)
        if not problem:
            return "v1", parent, ""
        why.append(f"cgroup v1 pids: {problem}")
    systemd = shutil.which("systemd-run")
    if systemd:
        cmd = [systemd, "--user", "--scope", "--quiet", "-p", "TasksMax=8", "true"]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
            if done.returncode == 0:
                return "systemd", "", ""
            why.append(f"systemd-run --user: {(done.stderr.strip() or 'failed')[:120]}")
        except (OSError, subprocess.TimeoutExpired) as exc:
            why.append(f"systemd-run --user: {exc}")
    return "none", "", "; ".join(why) or "no pids controller"


def limit(prefix: list[str] | None, folder: str) -> list[str] | None:
    """The sandbox's ``bwrap ... --`` prefix run in a cgroup of its own (one per ``folder``)
    where the host allows it (see ``method``); ``prefix`` as given otherwise (None: unconfined,
    left alone)."""
    if not prefix:
        return prefix
    kind, parent, _ = method()
    if kind == "systemd":
        return [
            "systemd-run",
            "--user",
            "--scope",
            "--quiet",
            "-p",
            f"TasksMax={TASKS_MAX}",
            "--",
        ] + prefix
    if kind == "none":
        return prefix
    group = _groups.get(folder)
    if group is None:
        group = os.path.join(parent, f"course-grader-{os.getpid()}-{next(_numbers)}")
        try:
            os.mkdir(group)
            with open(os.path.join(group, "pids.max"), "w") as f:
                f.write(str(TASKS_MAX))
        except OSError:
            return prefix
        _groups[folder] = group
    return ["/bin/sh", "-c", JOIN, group, *prefix]


def release(folder: str, wait: float = 10.0) -> None:
    """Remove ``folder``'s cgroup once its processes are gone (they are being killed)."""
    group = _groups.pop(folder, None)
    if group is None:
        return
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
