"""Each slot's folder on a file system of its own: a tmpfs with a byte and an inode budget.

A submission writes only in its slot's folder (its work folder, HOME and TMPDIR lie there) and
in the sandbox's private ``/dev/shm`` (a tmpfs of ``SHM_BYTES``). Were the slot's folder on the
grader's own file system, a notebook that creates small files until the file system says no
would leave none for the grader and for the classmates graded after it. On a tmpfs of its own
(``limits.SLOT_DISK_BYTES``, ``limits.SLOT_INODES``) it fills its own folder, fails alone,
and the next submission in the slot starts from an empty folder (scratch.empty frees it).

Mounting needs ``CAP_SYS_ADMIN``: root on most machines and containers that run the grader as
root (CI, Gradescope). Elsewhere the folder stays on the grader's file system, and the grader
says so in one line at the start (``NOT_BOUNDED``); the README says which.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import tempfile

from .. import limits

MS_NOSUID, MS_NODEV = 2, 4
MNT_DETACH = 2
NOT_BOUNDED = (
    "note: each submission's folder is on the grader's own file system here (a tmpfs of its "
    "own needs root): a notebook that fills the disk or its inodes fills them for the "
    "submissions graded after it; give --workdir a file system of its own"
)


@functools.cache
def _libc():
    return ctypes.CDLL(None, use_errno=True)


def mount(folder: str, size: int | None = None, inodes: int | None = None) -> str:
    """Mount a fresh tmpfs on ``folder`` (mode 700) of ``size`` bytes and ``inodes`` files
    (default: limits.SLOT_DISK_BYTES and SLOT_INODES); "" when done, else why not."""
    size = size or limits.SLOT_DISK_BYTES
    inodes = inodes or limits.SLOT_INODES
    options = f"size={size},nr_inodes={inodes},mode=700".encode()
    try:
        done = _libc().mount(b"tmpfs", os.fsencode(folder), b"tmpfs", MS_NOSUID | MS_NODEV, options)
    except (OSError, AttributeError) as exc:
        return str(exc)
    if done != 0:
        return os.strerror(ctypes.get_errno())
    return ""


def unmount(folder: str) -> None:
    """Unmount ``folder``'s tmpfs (lazily: a process still in it keeps it until it ends)."""
    try:
        _libc().umount2(os.fsencode(folder), MNT_DETACH)
    except (OSError, AttributeError):
        pass


@functools.cache
def available(workdir: str | None = None) -> bool:
    """Whether this grader can give each slot a tmpfs (tried once, in a scratch folder)."""
    probe = tempfile.mkdtemp(prefix="grade-probe-", dir=workdir)
    try:
        if mount(probe, 1 << 20, 64):
            return False
        unmount(probe)
        return True
    finally:
        os.rmdir(probe)


def is_full(folder: str) -> str:
    """What of its budget a slot's tmpfs has used up ("" if neither bytes nor inodes)."""
    try:
        st = os.statvfs(folder)
    except OSError:
        return ""
    if st.f_files and st.f_ffree == 0:
        return f"its {st.f_files:,} files"
    if st.f_bavail * st.f_frsize < 1 << 20:
        return f"its {st.f_blocks * st.f_frsize / 2**20:,.0f} MiB"
    return ""


def full_message(folder: str) -> str:
    """ "" or what the notebook did, in words for its feedback."""
    used = is_full(folder)
    return f"the notebook filled its folder ({used}: all one submission may have)" if used else ""


def no_room(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)
