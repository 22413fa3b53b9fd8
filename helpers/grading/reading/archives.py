"""Downloaded ``.zip`` files graded as they are: each is extracted, safely, into a temporary
folder, and the submissions' labels are then paths inside the zip (what ``lms.py`` reads students
from).

Only what grading reads is extracted: the notebooks, the course's data files
(``submissions.COURSE_FILES``), and the notebooks of a ``.zip`` a student uploaded (a Moodle
folder may hold one), read the same way, one level deep, into a folder named as the zip
(``Ann Lee_1_assignsubmission_file_/upload.zip/02.ipynb``). A notebook or an uploaded zip that
cannot be extracted is that submission's ``error`` row, with the reason (:func:`unread_under`
lists them; the batch goes on):

- a path that is absolute, holds ``..``, or is a link;
- a path the archive holds twice (two members of one name, or a name that is also a folder):
  none of them is graded, rather than the last one silently;
- a notebook over ``MAX_NOTEBOOK_BYTES``, or all members together over ``MAX_ZIP_BYTES``;
- no room: before each member the space and inodes left where it extracts are read
  (``statvfs``), keeping a reserve for the grading after it, and a write that fails all the same
  (the disk filled meanwhile) is undone; members go smallest first, so one student's huge files
  cannot crowd out the class;
- an uploaded zip that is not one, or a zip in an uploaded zip.

Any other member (a student's data, images, ``__MACOSX``) is not extracted: grading never reads it.
"""

from __future__ import annotations

import contextlib
import heapq
import os
import shutil
import tempfile
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from ..limits import (
    EXTRACT_RESERVE_BYTES,
    EXTRACT_RESERVE_INODES,
    EXTRACT_RESERVE_SHARE,
    MAX_NOTEBOOK_BYTES,
    MAX_SIBLING_BYTES,
    MAX_ZIP_BYTES,
    MAX_ZIP_MEMBERS,
)

# the folders extracted now -> {path inside it: why that notebook or zip was not extracted}
_UNREAD: dict[Path, dict[str, str]] = {}


class ArchiveError(ValueError):
    """A zip that cannot be read at all; the message names it."""


@dataclass
class _Member:
    path: str  # where it goes, relative to the folder (normalised, "/" separated)
    size: int  # as the archive declares it (zipfile reads no more)
    open: Callable[[], IO[bytes]]
    limit: int  # the largest such file that is extracted


def unread_under(folder: str | Path) -> list[tuple[str, str]]:
    """(path inside ``folder``, why it was not extracted) of the notebooks and uploaded zips of
    an archive extracted into ``folder`` by :func:`expanded`; [] for any other folder."""
    return sorted(_UNREAD.get(Path(folder).resolve(), {}).items())


def _limit(path: PurePosixPath) -> int | None:
    """The largest file of this kind that is extracted; None: grading never reads it."""
    from .submissions import COURSE_FILES

    name = path.name
    if name.endswith(".ipynb"):  # as find_submissions finds them
        return MAX_NOTEBOOK_BYTES
    if name.lower().endswith(".zip"):
        return MAX_ZIP_BYTES
    if any(name == d or name.endswith("_" + d) for d in COURSE_FILES):
        return MAX_SIBLING_BYTES
    return None


def _graded(path: str) -> bool:
    """A notebook or an uploaded zip: a submission, whose failure is its row (not data)."""
    return path.endswith(".ipynb") or path.lower().endswith(".zip")


def _is_zip(member: _Member) -> bool:
    return member.path.lower().endswith(".zip")


def _opener(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Callable[[], IO[bytes]]:
    return lambda: archive.open(info)


def _room(folder: Path) -> tuple[int, int | None]:
    """Bytes and inodes that may still be used where ``folder`` lies, less the reserve kept for
    grading (None: the file system counts no inodes)."""
    st = os.statvfs(folder)
    keep = min(EXTRACT_RESERVE_BYTES, st.f_blocks * st.f_frsize * EXTRACT_RESERVE_SHARE)
    free = int(st.f_bavail * st.f_frsize - keep)
    if not st.f_files:
        return free, None
    return free, int(st.f_favail - min(EXTRACT_RESERVE_INODES, st.f_files * EXTRACT_RESERVE_SHARE))


def _write(member: _Member, target: Path) -> None:
    """Extract ``member`` to ``target`` (a new file: no member overwrites another); a failure
    leaves nothing."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        with member.open() as src, open(target, "xb") as out:
            left = member.size
            while chunk := src.read(min(2**20, left + 1)):
                left -= len(chunk)
                if left < 0:  # zipfile stops at the declared size; never trust that alone
                    raise zipfile.BadZipFile("more bytes than the archive declares")
                out.write(chunk)
    except BaseException:
        target.unlink(missing_ok=True)
        raise


class _Extraction:
    """One downloaded zip extracted into ``folder``: what could not be is in ``unread``."""

    def __init__(self, folder: Path, scratch: Path):
        self.folder, self.scratch = folder, scratch  # scratch: the uploaded zips, read there
        self.left = MAX_ZIP_BYTES  # bytes all members together may still take
        self.unread: dict[str, str] = {}
        self.opened: list[zipfile.ZipFile] = []

    def listing(self, archive: zipfile.ZipFile, prefix: str = "") -> list[_Member]:
        """The members of ``archive`` grading reads, under ``prefix``; an unsafe one is unread."""
        members = []
        for info in archive.infolist():
            name = PurePosixPath(info.filename.replace("\\", "/"))
            path = PurePosixPath(prefix, name)
            limit = _limit(path)
            if info.is_dir() or "__MACOSX" in path.parts or path.name.startswith("._") or not limit:
                continue
            link = (info.external_attr >> 16) & 0o170000 == 0o120000
            if name.is_absolute() or ".." in name.parts or link:
                if _graded(path.name):
                    self.unread[prefix + info.filename] = "its path leaves its folder, or a link."
                continue
            members.append(_Member(path.as_posix(), info.file_size, _opener(archive, info), limit))
        return members

    def alone(self, members: list[_Member]) -> list[_Member]:
        """The members whose path no other member has, as a file or as a folder: of two files of
        one name none is graded, rather than the last one silently."""
        counts = Counter(m.path for m in members)
        folders = {str(p) for m in members for p in PurePosixPath(m.path).parents}
        kept = []
        for m in members:
            if counts[m.path] > 1:
                self.refuse(
                    m, f"the archive holds {counts[m.path]} files of this name: none is graded."
                )
            elif m.path in folders:
                self.refuse(
                    m, "the archive holds a file and a folder of this name: the file is not graded."
                )
            else:
                kept.append(m)
        return kept

    def refuse(self, member: _Member, why: str) -> None:
        if _graded(member.path):
            self.unread[member.path] = why

    def extract(self, member: _Member, folder: Path) -> bool:
        """Extract ``member`` under ``folder`` if it fits (else it is refused, with the reason)."""
        why = self._extract(member, folder)
        if why is None:
            self.left -= member.size
            return True
        self.refuse(member, why)
        return False

    def _extract(self, member: _Member, folder: Path) -> str | None:
        mb = f"{member.size / 2**20:.1f} MB"
        if member.size > member.limit:
            return f"it is too large to extract ({mb}; at most {member.limit // 2**20} MB)."
        if member.size > self.left:
            return f"the archive's files together are over {MAX_ZIP_BYTES // 2**30} GB."
        target = folder / member.path
        new_dirs = sum(1 for p in target.parents if p.is_relative_to(folder) and not p.exists())
        free, inodes = _room(folder)
        if member.size > free or (inodes is not None and inodes < 1 + new_dirs):
            left = f"{max(free, 0) / 2**20:.1f} MB" if member.size > free else "no inodes"
            return (
                f"there is no room to extract it ({mb}; {left} left where the grader extracts "
                "archives, less what it keeps for grading)."
            )
        try:
            _write(member, target)
        except (OSError, zipfile.BadZipFile, EOFError, RuntimeError, NotImplementedError) as exc:
            # RuntimeError: encrypted; NotImplementedError: a compression zipfile lacks
            return f"it could not be extracted ({type(exc).__name__}: {exc})."
        return None

    def upload(self, member: _Member) -> list[_Member]:
        """The notebooks of a zip a student uploaded, under its path ([] if it cannot be read)."""
        if not self.extract(member, self.scratch):
            return []
        try:
            inner = zipfile.ZipFile(self.scratch / member.path)
        except (OSError, zipfile.BadZipFile) as exc:
            self.refuse(member, f"the uploaded zip cannot be read ({type(exc).__name__}: {exc}).")
            return []
        self.opened.append(inner)
        members = self.alone(self.listing(inner, member.path + "/"))
        if len(members) > MAX_ZIP_MEMBERS:
            self.refuse(member, f"the uploaded zip holds over {MAX_ZIP_MEMBERS:,} notebooks.")
            return []
        for m in filter(_is_zip, members):
            self.refuse(m, "a zip inside an uploaded zip is not read: upload the notebooks.")
        return [m for m in members if not _is_zip(m)]

    def run(self, archive: zipfile.ZipFile) -> None:
        """Every member grading reads, smallest first; an uploaded zip's notebooks join the queue
        when it is read (its folder is its path: no member of the archive lies there, or the
        archive would hold a file and a folder of that name)."""
        members = self.alone(self.listing(archive))
        if len(members) > MAX_ZIP_MEMBERS:
            raise ArchiveError(f"too many files to extract ({len(members):,})")
        queue = [(m.size, m.path, m) for m in members]
        heapq.heapify(queue)
        while queue:
            _, _, m = heapq.heappop(queue)
            if not _is_zip(m):
                self.extract(m, self.folder)
                continue
            for inner in self.upload(m):
                heapq.heappush(queue, (inner.size, inner.path, inner))


def extract_zip(path: Path, dest: Path) -> Path:
    """Extract ``path`` into a new folder under ``dest`` (see the module docstring); labels are
    then paths inside the zip. ArchiveError: not a zip, too many members, or nowhere to extract."""
    folder = dest / path.stem
    n = 1
    while folder.exists():  # two zips with the same name
        n += 1
        folder = dest / f"{path.stem}-{n}"
    try:
        folder.mkdir(parents=True)
        job = _Extraction(folder, Path(tempfile.mkdtemp(prefix=".uploads-", dir=dest)))
    except OSError as exc:  # a disk full before the first member
        raise ArchiveError(f"{path}: no folder to extract it into ({exc})") from None
    _UNREAD[folder.resolve()] = job.unread
    try:
        with zipfile.ZipFile(path) as archive:
            job.run(archive)
    except zipfile.BadZipFile as exc:
        raise ArchiveError(f"{path}: not a zip file ({exc})") from None
    except (ArchiveError, OSError) as exc:
        raise ArchiveError(f"{path}: {exc}") from None
    finally:
        for inner in job.opened:
            inner.close()
        shutil.rmtree(job.scratch, ignore_errors=True)
    return folder


@contextlib.contextmanager
def expanded(paths: list[str]) -> Iterator[list[str]]:
    """The paths, with each ``.zip`` replaced by a temporary folder holding its contents."""
    zips = [p for p in paths if p.lower().endswith(".zip") and Path(p).is_file()]
    if not zips:
        yield list(paths)
        return
    try:
        tmp = Path(tempfile.mkdtemp(prefix="grade-zips-"))
    except OSError as exc:
        raise ArchiveError(f"no folder to extract {zips[0]} into: {exc}") from None
    try:
        yield [str(extract_zip(Path(p), tmp)) if p in zips else p for p in paths]
    finally:
        for folder in [f for f in _UNREAD if f.is_relative_to(tmp.resolve())]:
            del _UNREAD[folder]
        shutil.rmtree(tmp, ignore_errors=True)
