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


def new_work_folder(slot_folder: Path) -> Path:
    """A fresh folder in the slot for one submission (never a name a previous one used)."""
    os.chmod(slot_folder, 0o700)  # a submission may have made the slot's folder read-only
    return Path(tempfile.mkdtemp(prefix="work-", dir=slot_folder))


def _owner_can_enter(folder: str) -> None:
    try:
        os.chmod(folder, 0o700)  # links are never followed: os.walk lists them, never enters
    except OSError:
        pass


def empty(folder: Path) -> list[str]:
    """Remove everything in ``folder`` (it stays); returns the names that could not be removed."""
    _owner_can_enter(str(folder))
    for root, dirs, _files in os.walk(folder):  # top-down: a folder is entered after its turn
        for name in dirs:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                _owner_can_enter(path)
    for entry in list(folder.iterdir()):
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
    return [entry.name for entry in folder.iterdir()]


def remove(folder: Path) -> None:
    """Remove ``folder`` and all in it."""
    empty(folder)
    shutil.rmtree(folder, ignore_errors=True)
