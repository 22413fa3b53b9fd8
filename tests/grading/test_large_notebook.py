"""A notebook is graded from its code, not refused for its outputs (issue 42).

A notebook with 40 MB of stored outputs got 0 as "too large to grade", though the grader never
uses outputs. It is now read with its outputs dropped as the parse meets them (reading/cells.py),
and graded like the same notebook saved without them; what is still too large is its code
(``MAX_CODE_BYTES``) or a file past ``MAX_NOTEBOOK_BYTES``, each said in its row.
"""

from __future__ import annotations

import base64
import contextlib
import csv
import io
import json
import re
from pathlib import Path

import pytest

from helpers.__main__ import main
from helpers.grading.limits import MAX_CODE_BYTES, MAX_NOTEBOOK_BYTES, MiB
from helpers.grading.reading.cells import read_cells
from helpers.grading.reading.isolate import IsolatedError, call_limited
from helpers.grading.reading.submissions import read_limited, read_notebook
from helpers.grading.records import Submission

from .builders import plain_notebook

RELU = "import torch\n\ndef relu(x):\n    return torch.where(x > 0, x, torch.zeros_like(x))"
OUTPUTS = [  # 40 logs of 100,000 lines (52 MB of JSON), then a figure
    *[{"output_type": "stream", "name": "stdout", "text": ["loss 0.1\n"] * 100_000}] * 40,
    {
        "output_type": "display_data",
        "metadata": {},
        "data": {"image/png": base64.b64encode(bytes(3_000_000)).decode()},
    },
]


def saved(path: Path, outputs: list | None = None, code: str = RELU) -> Path:
    """Notebook 00 with one code cell holding ``code``, saved with ``outputs`` and a markdown
    cell with an attachment."""
    nb = plain_notebook(code, notebook="00")
    nb.cells[0].outputs = outputs or []
    nb.cells.insert(0, {"cell_type": "markdown", "metadata": {}, "source": "# x" * 1000,
                        "attachments": {"a.png": {"image/png": "AAAA" * 100_000}}})  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def test_a_notebook_with_40_mb_of_outputs_is_read_for_its_code(tmp_path):
    path = saved(tmp_path / "00_big.ipynb", OUTPUTS)
    assert path.stat().st_size > 40 * 2**20
    sub = Submission(path, "00_big.ipynb")
    nb = read_notebook(sub)
    assert sub.problem is None and sub.notebook == "00"
    assert nb.cells[1].source == RELU and nb.cells[1].outputs == []
    assert nb.cells[0].source == "" and "attachments" not in nb.cells[0]  # cells keep their place
    limited = Submission(path, "00_big.ipynb")
    read_limited(limited)  # in the child process, under READ_MEMORY
    assert limited.problem is None and limited.notebook == "00"
    # bounded memory: the text and one output at a time, where all of it parsed needs more
    read = call_limited(lambda: len(read_cells(path)["cells"]), memory_bytes=192 * MiB, seconds=60)
    assert read == 2
    with pytest.raises(IsolatedError, match="more memory"):
        call_limited(lambda: len(json.loads(path.read_text())), memory_bytes=192 * MiB, seconds=60)


def test_what_is_still_too_large_is_said(tmp_path):
    code = "x = 1\n" * (MAX_CODE_BYTES // 6 + 1)
    sub = Submission(saved(tmp_path / "00_code.ipynb", code=code), "00_code.ipynb")
    read_limited(sub)
    assert re.fullmatch(
        r"too large to grade: its code and metadata take \d+ MB, outputs set aside "
        r"\(at most 16 MB\).",
        sub.problem,
    )
    huge = tmp_path / "00_huge.ipynb"
    with open(huge, "wb") as f:
        f.truncate(MAX_NOTEBOOK_BYTES + 1)  # sparse: the size is checked before any read
    sub = Submission(huge, "00_huge.ipynb")
    read_limited(sub)
    assert sub.problem.startswith("the file is too large to read (256 MB; at most 256 MB")


@pytest.mark.slow
def test_graded_as_the_same_notebook_saved_without_outputs(tmp_path):
    saved(tmp_path / "subs" / "with_outputs" / "00.ipynb", OUTPUTS)
    saved(tmp_path / "subs" / "without" / "00.ipynb")
    out = tmp_path / "g.csv"
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(["grade", str(tmp_path / "subs"), "--out", str(out), "--seed", "3"])
    assert code == 0
    with open(out, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    mine = {
        who: [(r["exercise"], r["points"], r["status"], r["message"]) for r in rows
              if r["submission"].startswith(who)]
        for who in ("with_outputs", "without")
    }  # fmt: skip
    assert mine["with_outputs"] == mine["without"]
    assert ("00.relu", "1", "passed") in [r[:3] for r in mine["without"]]
