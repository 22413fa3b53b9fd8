"""Labels are unique, printable and never hold the instructor's path (issue 42).

A file name that is not UTF-8 and a plain name equal to its escape got one label (and then the
instructor's absolute path in the gradebook and the feedback); names differing only by a
control character or a bidi override became one ``...\\ufffd...`` in the gradebook: 5 files,
3 labels, 4 feedback files, and a later ``--resume`` graded 3 submissions again.
"""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

from helpers.__main__ import main
from helpers.grading.books.feedback import feedback_path
from helpers.grading.books.gradebook import Gradebook, read_rows
from helpers.grading.reading.labels import escaped
from helpers.grading.reading.submissions import find_submissions
from helpers.grading.records import Row

NAMES = [  # as bytes: the file system's names
    b"00_\xff.ipynb",  # not UTF-8
    b"00_\\xff.ipynb",  # its escape, as a plain name
    b"00_\\\\xff.ipynb",
    b"00_a\x01b.ipynb",  # a control character
    "00_a\u202eb.ipynb".encode(),  # a bidi override
    "00_a\ufffdb.ipynb".encode(),  # what both became
    "00_a\u200bb.ipynb".encode(),  # a zero-width space
    b"00_a\nb.ipynb",
    b"00_\t=1+1.ipynb",
    b"00_\\u202e.ipynb",
    "00_\u202e.ipynb".encode(),
    b"00_ab.ipynb",
]


def folder_of(tmp_path: Path, names=NAMES, text: str = "not a notebook") -> Path:
    subs = tmp_path / "subs"
    for name in names:
        path = Path(os.fsdecode(os.fsencode(subs) + b"/" + name))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return subs


def test_labels_are_one_per_file_printable_and_the_same_every_run(tmp_path):
    subs = folder_of(tmp_path)
    labels = [s.label for s in find_submissions([subs])]
    assert len(set(labels)) == len(NAMES)
    assert all(label.isprintable() for label in labels)
    assert not any(str(tmp_path) in label for label in labels)
    assert "00_\\xff.ipynb" in labels and "00_\\\\xff.ipynb" in labels  # the README's example
    assert "00_a\\u202eb.ipynb" in labels and "00_ab.ipynb" in labels
    assert labels == [s.label for s in find_submissions([str(subs)])]
    assert len({feedback_path(tmp_path, label) for label in labels}) == len(NAMES)
    book = tmp_path / "g.csv"  # what --resume reads back: the same labels
    Gradebook(book, [Row(lb, "00", "00.relu", 0, 1, "error", "x") for lb in labels]).close()
    assert sorted(r.submission for r in read_rows(book)) == sorted(labels)


def test_the_same_path_under_two_folders_gets_two_labels_without_the_folders(tmp_path):
    for section in ("sec1", "sec2"):
        folder_of(tmp_path / section, [b"alice/00_a.ipynb", b"x.ipynb"])
    (tmp_path / "sec2" / "subs" / "carol_00.ipynb").write_text("{}")
    given = [tmp_path / "sec1" / "subs", tmp_path / "sec2" / "subs", tmp_path / "sec1" / "subs"]
    labels = [s.label for s in find_submissions(given)]
    assert labels == [
        "alice/00_a\\(1).ipynb",
        "x\\(1).ipynb",
        "alice/00_a\\(2).ipynb",
        "carol_00.ipynb",
        "x\\(2).ipynb",
    ]
    one = tmp_path / "sec1" / "subs" / "x.ipynb"
    assert [s.label for s in find_submissions([one.resolve()])] == ["x.ipynb"]  # not its path


def test_escapes_cannot_be_written_as_plain_names():
    raw = ["\udcff", "\\xff", "\\\\xff", "\x85", "\\x85", "\\u0085", "\U0001d173", "\\"]
    assert len({escaped(name) for name in raw}) == len(raw)


def test_a_batch_of_such_names_grades_each_once_and_resume_grades_none_again(tmp_path):
    subs = folder_of(tmp_path)  # none is a notebook: each an error row, no kernel needed
    out, feedback = tmp_path / "g.csv", tmp_path / "feedback"
    args = ["grade", str(subs), "--out", str(out), "--feedback", str(feedback), "--no-progress"]
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        assert main([*args, "--sandbox", "none", "--no-preload"]) == 0
        assert main([*args, "--sandbox", "none", "--no-preload", "--resume"]) == 0
    labels = {r.submission for r in read_rows(out)}
    assert len(labels) == len(NAMES) and len(list(feedback.iterdir())) == len(NAMES)
    assert f"keeping the rows of {len(NAMES)} submissions" in err.getvalue()
    assert "grading 0." in err.getvalue()
    text = out.read_text(encoding="utf-8") + "".join(
        p.read_text(encoding="utf-8") for p in feedback.iterdir()
    )
    assert str(tmp_path) not in text
