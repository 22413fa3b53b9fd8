"""The folders a submission runs in, and their clean-up whatever the submission did to them.

A kernel may change the mode of what it can write: its work folder, the files and folders it
made in it, and the slot's folder (the sandbox's one writable bind). ``chmod 000`` on a folder
stops ``shutil.rmtree`` for a grader that is not root (root ignores modes), and a work folder
that cannot be removed must not stop the next submission in the slot: each submission runs in a
new folder (``new_work_folder``), and ``empty`` gives every folder back its owner's permissions
before removing it. It runs after every process of the submission has been killed (zygote.py),
so nothing changes the tree while it is walked.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

# a kernel's sockets are files in its work folder (kernel.py): their path, the longest a
# grader makes, must fit a unix socket's address (108 bytes on Linux, with its final NUL)
SOCKET_PATH_MAX = 107
LONGEST_SOCKET = "/grade-XXXXXXXX/slot-99/work-XXXXXXXX/.grader-XXXXXXXX/kXXXXXXXX-99999"


def check_workdir(workdir: str | None) -> str:
    """ "" when sandboxed kernels (which talk over unix sockets) can run in ``workdir`` (None:
    the system's temporary folder), else why not, in words for the command line."""
    where = os.path.realpath(workdir or tempfile.gettempdir())
    room = SOCKET_PATH_MAX - len(LONGEST_SOCKET)
    if len(where.encode()) > room:
        return (
            f"the grader's working folder {where!r} is {len(where.encode())} bytes long; the "
            f"kernels' unix sockets inside it need it at most {room}: give a shorter --workdir "
            "(TMPDIR, or Settings.workdir)"
        )
    return ""


def new_work_folder(slot_folder: Path) -> Path:
    """A fresh folder in the slot for one submission (never a name a previous one used)."""
    os.chmod(slot_folder, 0o700)  # a submission may have made the slot's folder read-only
    return Path(tempfile.mkdtemp(prefix="work-", dir=slot_folder))


def _owner_can_enter(folder: str) -> None:
    try:
        os.chmod(folder, 0o700)  # only folders come here (links are never entered)
    except OSError:
        pass


def empty(folder: Path) -> list[str]:
    """Remove everything in ``folder`` (it stays); returns the names that could not be removed.

    Without recursion and without long paths, whatever the depth of the tree (a submission
    may leave folders 100,000 levels deep): each folder met inside another is first moved up
    into ``folder``, then emptied the same way and removed. Links are removed, never followed.
    """
    top = str(folder)
    tag = os.urandom(4).hex()
    pending, moved = [top], 0
    while pending:
        current = pending.pop()
        _owner_can_enter(current)
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for entry in entries:
            try:
                if not entry.is_dir(follow_symlinks=False):
                    os.unlink(entry.path)
                elif current == top:
                    pending.append(entry.path)
                else:
                    moved += 1
                    up = os.path.join(top, f".removing-{tag}-{moved}")
                    _owner_can_enter(entry.path)  # a folder moves to a new parent if writable
                    os.rename(entry.path, up)
                    pending.append(up)
            except OSError:
                pass
        if current != top:
            try:
                os.rmdir(current)
            except OSError:
                pass
    return sorted(os.listdir(top))


def remove(folder: Path) -> None:
    """Remove ``folder`` and all in it."""
    empty(folder)
    shutil.rmtree(folder, ignore_errors=True)
