"""Downloaded ``.zip`` files graded as they are: each is extracted, safely, into a temporary
folder (no absolute path, ``..`` or link; a cap on members and bytes), and the submissions'
labels are then paths inside the zip (what ``lms.py`` reads students from)."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from ..limits import MAX_ZIP_BYTES

MAX_ZIP_MEMBERS = 200_000


class ArchiveError(ValueError):
    """A zip that cannot be extracted safely; the message names it."""


def _safe_members(archive: zipfile.ZipFile, name: str) -> list[zipfile.ZipInfo]:
    members, total = [], 0
    for info in archive.infolist():
        path = PurePosixPath(info.filename.replace("\\", "/"))
        if info.is_dir() or "__MACOSX" in path.parts or path.name.startswith("._"):
            continue
        if (
            path.is_absolute()
            or ".." in path.parts
            or (info.external_attr >> 16) & 0o170000 == 0o120000
        ):
            raise ArchiveError(f"{name}: unsafe member {info.filename!r} (absolute, .. or a link)")
        total += info.file_size
        members.append(info)
    if len(members) > MAX_ZIP_MEMBERS or total > MAX_ZIP_BYTES:
        raise ArchiveError(
            f"{name}: too large to extract ({len(members)} files, "
            f"{total / 2**30:.1f} GiB uncompressed)"
        )
    return members


def extract_zip(path: Path, dest: Path) -> Path:
    """Extract ``path`` into a new folder under ``dest``; labels are then paths inside the zip."""
    folder = dest / path.stem
    n = 1
    while folder.exists():  # two zips with the same name
        n += 1
        folder = dest / f"{path.stem}-{n}"
    folder.mkdir(parents=True)
    try:
        with zipfile.ZipFile(path) as archive:
            for info in _safe_members(archive, str(path)):
                target = folder / PurePosixPath(info.filename.replace("\\", "/"))
                target.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(info) as src, open(target, "wb") as out:
                    shutil.copyfileobj(src, out)
    except zipfile.BadZipFile as exc:
        raise ArchiveError(f"{path}: not a zip file ({exc})") from None
    return folder


@contextlib.contextmanager
def expanded(paths: list[str]) -> Iterator[list[str]]:
    """The paths, with each ``.zip`` replaced by a temporary folder holding its contents."""
    zips = [p for p in paths if p.lower().endswith(".zip") and Path(p).is_file()]
    if not zips:
        yield list(paths)
        return
    tmp = Path(tempfile.mkdtemp(prefix="grade-zips-"))
    try:
        out = [str(extract_zip(Path(p), tmp)) if p in zips else p for p in paths]
        yield out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
