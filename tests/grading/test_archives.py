"""A downloaded zip is read member by member; what cannot be read is that student's row (issue 42).

- A 3 MiB zip whose one student's files expand to 3 GiB, with ``TMPDIR`` on a 1 GiB tmpfs: no
  gradebook, exit 1, a traceback, and no rows for the honest classmates in the same zip. Now the
  space and inodes left are checked before and while extracting, and what does not fit is that
  student's ``error`` row: the batch goes on, exit 0.
- Two members of one name: the last one was graded, silently (Bob 0/3.5). Now neither is, and
  Bob's row says why.
- A zip inside a Moodle upload was not looked into, and got no row. Now it is read (one level,
  the same caps), or its row says why not.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
import zipfile
from pathlib import Path

import pytest

from helpers.__main__ import main
from helpers.grading.reading import archives
from helpers.grading.reading.archives import expanded
from helpers.grading.reading.students import student_of
from helpers.grading.reading.submissions import find_submissions

from ..speed import scaled
from .builders import ROOT, plain_notebook

RELU_OK = "import torch\n\ndef relu(x):\n    return torch.where(x > 0, x, torch.zeros_like(x))"
RELU_WRONG = "import torch\n\ndef relu(x):\n    return x.abs()"
ANN, BO = "Ann Lee_101_assignsubmission_file_", "Bo Chen_102_assignsubmission_file_"


def text(code: str) -> bytes:
    return json.dumps(plain_notebook(code, notebook="00")).encode()


def make_zip(path: Path, members: list[tuple[str, bytes]]) -> Path:
    with warnings.catch_warnings(), zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        warnings.simplefilter("ignore")  # "Duplicate name": what the test is about
        for name, data in members:
            z.writestr(name, data)
    return path


def zipped(members: list[tuple[str, bytes]]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in members:
            z.writestr(name, data)
    return out.getvalue()


def problems(paths) -> dict[str, str | None]:
    return {s.label: s.problem for s in find_submissions(paths)}


# --------------------------------------------------------------------------- units: no kernel


def test_two_members_of_one_name_are_refused_not_the_last_one_graded(tmp_path):
    z = make_zip(
        tmp_path / "class.zip",
        [
            ("alice/00.ipynb", text(RELU_OK)),
            ("bob/00.ipynb", text(RELU_OK)),
            ("bob/00.ipynb", text(RELU_WRONG)),  # the last one was graded, silently
            ("carol/00.ipynb", text(RELU_OK)),
            ("carol/00.ipynb/00.ipynb", text(RELU_OK)),  # a file and a folder of one name
            ("dan\\00.ipynb", text(RELU_OK)),
            ("dan/00.ipynb", text(RELU_WRONG)),  # one name once "\" is read as "/"
        ],
    )
    with expanded([str(z)]) as paths:
        got = problems(paths)
        assert not (Path(paths[0]) / "bob" / "00.ipynb").exists()
    assert got == {
        "alice/00.ipynb": None,
        "bob/00.ipynb": "the archive holds 2 files of this name: none is graded.",
        "carol/00.ipynb": "the archive holds a file and a folder of this name: the file is "
        "not graded.",
        "carol/00.ipynb/00.ipynb": None,
        "dan/00.ipynb": "the archive holds 2 files of this name: none is graded.",
    }


def test_a_zip_in_a_moodle_upload_is_read_or_its_row_says_why(tmp_path):
    upload = zipped(
        [
            ("00_a.ipynb", text(RELU_OK)),
            ("work/00_b.ipynb", text(RELU_WRONG)),
            ("notes.txt", b"not graded"),
            ("again.zip", zipped([("00_c.ipynb", text(RELU_OK))])),
            ("../up.ipynb", text(RELU_OK)),
        ]
    )
    z = make_zip(
        tmp_path / "moodle.zip",
        [
            (f"{ANN}/upload.zip", upload),
            (f"{BO}/broken.zip", b"PK\x03\x04 not a zip"),
            (f"{BO}/00_x.ipynb", text(RELU_OK)),
        ],
    )
    with expanded([str(z)]) as paths:
        got = problems(paths)
        extracted = sorted(p.relative_to(paths[0]).as_posix() for p in Path(paths[0]).rglob("*"))
    assert got == {
        f"{ANN}/upload.zip/../up.ipynb": "its path leaves its folder, or a link.",
        f"{ANN}/upload.zip/00_a.ipynb": None,
        f"{ANN}/upload.zip/again.zip": "a zip inside an uploaded zip is not read: upload the "
        "notebooks.",
        f"{ANN}/upload.zip/work/00_b.ipynb": None,
        f"{BO}/00_x.ipynb": None,
        f"{BO}/broken.zip": "the uploaded zip cannot be read (BadZipFile: File is not a zip file).",
    }
    assert {student_of(label).name for label in got} == {"Ann Lee", "Bo Chen"}
    assert "notes.txt" not in " ".join(extracted)  # what grading never reads is not extracted


class _Disk:
    """``os.statvfs`` of a small disk where the archive extracts (``under``): of 1 GiB and
    100,000 inodes (so the reserve kept is 256 MiB and 10,000 inodes), ``free`` bytes and
    ``inodes`` left before, less what is written there since."""

    def __init__(self, under: Path, free: int, inodes: int):
        self.under, self.free, self.inodes, self.real = under, free, inodes, os.statvfs

    def __call__(self, path):
        if not Path(path).is_relative_to(self.under):
            return self.real(path)
        made = list(self.under.rglob("*"))
        used = sum(p.stat().st_size for p in made if p.is_file())
        free_blocks, inodes = (self.free - used) // 4096, self.inodes - len(made)
        return os.statvfs_result((4096, 4096, 2**18, 0, free_blocks, 100_000, 0, inodes, 0, 255))


@pytest.mark.parametrize(
    "free, inodes, said",
    [
        (256 * 2**20 + 3 * 2**20, 100_000, "(5.0 MB; 3.0 MB left where the grader extracts"),
        (2**30, 10_000 + 3 + 2, "(0.0 MB; no inodes left where the grader extracts"),
    ],
)
def test_what_does_not_fit_the_disk_is_that_students_row(tmp_path, monkeypatch, free, inodes, said):
    """The third and largest file does not fit (3 of the inodes: the folders extracted into)."""
    small = text(RELU_OK)
    big = small + b" " * 5 * 2**20 if inodes == 100_000 else small + b" "
    z = make_zip(
        tmp_path / "z.zip", [("alice.ipynb", small), ("bob.ipynb", small), ("mallory.ipynb", big)]
    )
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    monkeypatch.setattr(os, "statvfs", _Disk(tmp_path / "tmp", free, inodes))
    with expanded([str(z)]) as paths:
        got = problems(paths)
    assert [label for label, why in got.items() if why] == ["mallory.ipynb"], got
    assert said in got["mallory.ipynb"]


def test_an_uploaded_zip_waits_its_turn_by_size(tmp_path, monkeypatch):
    """Bob's 2.5 MB upload, read first, would leave no room for Alice's 1 MB notebook: files go
    smallest first, uploads too, so it is his upload that finds none."""
    alice = text(RELU_OK) + b" " * 2**20
    upload = zipped([("00.ipynb", text(RELU_OK) + b" " * int(2.4 * 2**20))])
    z = make_zip(tmp_path / "z.zip", [("alice/00.ipynb", alice), ("bob/upload.zip", upload)])
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    monkeypatch.setattr(os, "statvfs", _Disk(tmp_path / "tmp", 256 * 2**20 + 3 * 2**20, 100_000))
    with expanded([str(z)]) as paths:
        got = problems(paths)
    assert got["alice/00.ipynb"] is None
    assert got["bob/upload.zip"].startswith("there is no room to extract it (2.4 MB; 2.0 MB left")


def test_a_disk_that_fills_while_extracting_leaves_nothing_half_written(tmp_path, monkeypatch):
    z = make_zip(tmp_path / "class.zip", [("alice.ipynb", text(RELU_OK)), ("bob.ipynb", b"{}")])
    real_open = open

    def full(path, mode="r", *args, **kwargs):
        f = real_open(path, mode, *args, **kwargs)
        if "x" in mode and str(path).endswith("alice.ipynb"):

            def write(data):
                raise OSError(errno.ENOSPC, "No space left on device")

            f.write = write
        return f

    monkeypatch.setattr(archives, "open", full, raising=False)
    with expanded([str(z)]) as paths:
        got = problems(paths)
        assert sorted(p.name for p in Path(paths[0]).iterdir()) == ["bob.ipynb"]
    assert got == {
        "alice.ipynb": "it could not be extracted (OSError: [Errno 28] No space left on device).",
        "bob.ipynb": None,
    }


# --------------------------------------------------------------------------- with kernels


def grade(*args: str) -> tuple[int, list[dict], str]:
    out, err = io.StringIO(), io.StringIO()
    gradebook = Path(args[args.index("--out") + 1])
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["grade", *args, "--seed", "5", "--timeout", str(scaled(60)), "--no-progress"])
    with open(gradebook, newline="", encoding="utf-8") as f:
        return code, list(csv.DictReader(f)), out.getvalue() + err.getvalue()


def rows_of(rows: list[dict], student: str) -> list[tuple]:
    return [
        (r["exercise"], r["points"], r["status"], r["message"])
        for r in rows
        if student_of(r["submission"]).name == student
    ]


@pytest.mark.slow
def test_duplicates_and_uploaded_zips_through_the_grader(tmp_path):
    honest = [
        (f"{ANN}/00_welcome.ipynb", text(RELU_OK)),
        (f"{BO}/upload.zip", zipped([("00_welcome.ipynb", text(RELU_WRONG))])),
    ]
    bob = "Bob Ray_103_assignsubmission_file_/00_welcome.ipynb"
    hostile = [(bob, text(RELU_WRONG)), (bob, text(RELU_OK))]
    code, rows, said = grade(
        str(make_zip(tmp_path / "all.zip", honest + hostile)), "--out", str(tmp_path / "a.csv")
    )
    assert code == 0 and "Traceback" not in said
    code, alone, _ = grade(
        str(make_zip(tmp_path / "h.zip", honest)), "--out", str(tmp_path / "h.csv")
    )
    assert code == 0
    for student in ("Ann Lee", "Bo Chen"):
        assert rows_of(rows, student) == rows_of(alone, student) != []
    bo = [r[:3] for r in rows_of(rows, "Bo Chen") if r[0] == "00.relu"]
    assert bo == [("00.relu", "0", "failed")]  # read from the upload
    assert {r[2:] for r in rows_of(rows, "Bob Ray")} == {
        ("error", "the archive holds 2 files of this name: none is graded.")
    }


def _unshare_mount() -> list[str] | None:
    """A command prefix that runs a shell with a private 64 MiB tmpfs of 2,000 inodes at $T, or
    None where this host allows none (no unshare, no user namespaces)."""
    prefix = ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c"]
    mount = 'mount -t tmpfs -o size=64m,nr_inodes=2000 none "$T"'
    if shutil.which("unshare") is None:
        return None
    probe = subprocess.run([*prefix, mount], env={**os.environ, "T": "/mnt"}, capture_output=True)
    return prefix + [mount + ' && TMPDIR="$T" exec "$@"', "sh"] if probe.returncode == 0 else None


@pytest.mark.slow
def test_an_archive_that_expands_past_the_disk(tmp_path):
    """Mallory's three notebooks of 100 MiB each (a few hundred kB zipped) with TMPDIR on a tmpfs
    of 64 MiB: her rows say there is no room; the batch goes on, writes its gradebook, prints no
    traceback and exits 0; Ann's and Bo's rows are those they get graded alone."""
    prefix = _unshare_mount()
    if prefix is None:
        pytest.skip("no private tmpfs here (unshare --user --mount is not allowed)")
    honest = [
        (f"{ANN}/00_welcome.ipynb", text(RELU_OK)),
        (f"{BO}/00_welcome.ipynb", text(RELU_WRONG)),
    ]
    pad = "\n# " + "x" * 100 * 2**20
    mallory = [
        (f"Mal Lory_104_assignsubmission_file_/00_{i}.ipynb", text(RELU_OK + pad)) for i in range(3)
    ]
    z = make_zip(tmp_path / "all.zip", honest + mallory)
    assert z.stat().st_size < 3 * 2**20
    (tmp_path / "t").mkdir()
    cmd = [sys.executable, "-m", "helpers", "grade", str(z), "--out", str(tmp_path / "a.csv")]
    cmd += ["--seed", "5", "--timeout", str(scaled(60)), "--no-progress", "--sandbox", "none"]
    done = subprocess.run(
        prefix + cmd, cwd=ROOT, env={**os.environ, "T": str(tmp_path / "t")}, capture_output=True,
        text=True, timeout=scaled(600),
    )  # fmt: skip
    assert done.returncode == 0 and "Traceback" not in done.stdout + done.stderr, done.stderr
    with open(tmp_path / "a.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    code, alone, _ = grade(
        str(make_zip(tmp_path / "h.zip", honest)),
        "--out",
        str(tmp_path / "h.csv"),
        "--sandbox",
        "none",
    )
    assert code == 0
    for student in ("Ann Lee", "Bo Chen"):
        assert rows_of(rows, student) == rows_of(alone, student) != []
    theirs = rows_of(rows, "Mal Lory")
    assert len(theirs) == 3 * 3 and {r[2] for r in theirs} == {"error"}  # 3 notebooks of 00
    assert all("there is no room to extract it (100.0 MB;" in r[3] for r in theirs)
