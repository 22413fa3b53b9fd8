"""Student notebooks, as a learner first opens them: every check on an unfilled TODO says
"not implemented yet", and the notebook runs to the end (cells that need the learner's code
fail, the rest work)."""

import re

import nbformat
import pytest
from nbclient import NotebookClient

from helpers.notebooks.common import ROOT, solution_paths

CHECK_CALL = re.compile(r"""check\(\s*["'](\d\d[a-z]?\.\w+)["']\s*,\s*(\w+)""")


def stub_checks(nb):
    """(cell, exercise id) for each check cell that checks the learner's own stub."""
    names = {}
    for cell in nb.cells:
        ex = cell.metadata.get("course", {}).get("exercise")
        if ex:
            names[ex] = ex.split(".", 1)[1]
    for cell in nb.cells:
        if cell.cell_type == "code":
            for ex, name in CHECK_CALL.findall(cell.source):
                if names.get(ex) == name:
                    yield cell, ex


def run_unfilled(nb, folder, name: str, kernel_name: str = "python3", timeout: int = 120):
    """Execute student notebook ``nb`` in ``folder`` as a learner first opens it (errors
    allowed) and assert that each check of an unfilled stub says "not implemented yet"."""
    NotebookClient(
        nb,
        timeout=timeout,
        kernel_name=kernel_name,
        allow_errors=True,
        resources={"metadata": {"path": str(folder)}},
    ).execute()
    checks = list(stub_checks(nb))
    assert checks, f"{name}: no check cells found"
    for cell, ex in checks:
        text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
        errors = [o.ename for o in cell.outputs if o.output_type == "error"]
        assert not errors, f"{name}: the check cell of {ex} raised {errors}"
        assert text.startswith(f"❌ {ex}: not implemented yet"), f"{name}: {ex} printed {text!r}"


@pytest.mark.slow
@pytest.mark.parametrize("name", [p.name for p in solution_paths()])
def test_unfilled_student_notebook_reports_not_implemented(name, tmp_path):
    nb = nbformat.read(str(ROOT / "notebooks" / name), as_version=4)
    run_unfilled(nb, tmp_path, name)
