"""The fallback where bubblewrap cannot start (a container without user namespaces, as some
Gradescope images are): the kernel runs as a separate unprivileged user.

The grader stays root; the kernel's launcher, started by root in the submission's work
folder, gives that folder (and the kernel's connection file and sockets in it) to the user,
lets the user through the slot's folder (enter, not list), drops every group and becomes the
user before it ``exec``s the kernel. As that user the notebook can write its own folder and
world-writable places (``/tmp``), and nothing of root's: not ``results.json``, not the
autograder's files, not the grader's process. :func:`end_all` kills every process of the
user (a detached one included) before the grader writes its results.

The course's reference code (``helpers.blocks``, the checks' formulas) is in the package the
grader runs, which the bundle installs world-readable: while the notebook runs, that package
is root's alone (:func:`package_hidden`), and the kernel imports the package's view, which holds
no reference (kernel_view.py).

Only for a uid that nothing else on the machine runs as: :func:`end_all` kills them all.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import signal
import sys
import time

# argv: uid gid -- cmd ...; run by root with the work folder as its working directory
DROP = r"""
import os, sys
uid, gid = int(sys.argv[1]), int(sys.argv[2])
for root, dirs, files in os.walk("."):
    for name in dirs + files:
        os.lchown(os.path.join(root, name), uid, gid)
os.lchown(".", uid, gid)
os.chmod("..", 0o711)
os.setgroups([])
os.setgid(gid)
os.setuid(uid)
if os.getuid() != uid or os.geteuid() != uid:
    sys.exit("could not become the unprivileged user")
cmd = sys.argv[4:]
os.execv(cmd[0], cmd)
"""

DEFAULT_USER = "notebook"  # made by the Gradescope bundle's setup.sh
NOBODY = 65534


def resolve_user(name: str | None) -> tuple[int, int]:
    """(uid, gid) of ``name`` (a user name or a number); the bundle's user, else nobody."""
    if name and name.isdigit():
        return int(name), int(name)
    try:
        entry = pwd.getpwnam(name or DEFAULT_USER)
        return entry.pw_uid, entry.pw_gid
    except KeyError:
        if name:
            raise ValueError(f"no user {name!r} on this machine") from None
        return NOBODY, NOBODY


def available() -> bool:
    """Only root can start a process as another user."""
    return hasattr(os, "geteuid") and os.geteuid() == 0


def prefix(uid: int, gid: int) -> list[str]:
    """The command a kernel's launcher runs under (the place of bwrap's ``... --``)."""
    if uid == 0:
        raise ValueError("the separate user must not be root")
    return [sys.executable, "-c", DROP, str(uid), str(gid), "--"]


@contextlib.contextmanager
def package_hidden():
    """The ``helpers`` package the grader runs, readable by its owner alone until the end."""
    from .sandbox import helpers_path

    package = helpers_path()
    mode = os.stat(package).st_mode & 0o7777
    os.chmod(package, 0o700)
    try:
        yield
    finally:
        os.chmod(package, mode)


def _uids(pid: str) -> set[int]:
    """Real, effective, saved and file-system uids of a process (empty if it is gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("Uid:"):
                    return {int(x) for x in line.split()[1:]}
    except OSError:
        pass
    return set()


def pids_of(uid: int) -> list[int]:
    """Every process that runs with ``uid`` as any of its uids."""
    return [int(e) for e in os.listdir("/proc") if e.isdigit() and uid in _uids(e)]


def end_all(uid: int, timeout: float = 10.0) -> int:
    """SIGKILL every process of ``uid`` until none is left (a fork between two scans is
    caught by the next); returns how many were killed. RuntimeError if some survive."""
    killed, deadline = set(), time.monotonic() + timeout
    while True:
        pids = pids_of(uid)
        if not pids:
            return len(killed)
        if time.monotonic() > deadline:
            raise RuntimeError(f"processes of uid {uid} survive SIGKILL: {pids[:10]}")
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except OSError:
                pass
        time.sleep(0.05)
