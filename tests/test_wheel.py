"""The series where students already are: a Colab-like environment (a Python with torch and a
Jupyter kernel, nothing else), the student notebooks copied into an empty folder, each opened by
the install cell of ``python -m helpers student --repo`` pointed at the package's wheel.

The first notebook's install cell installs the wheel and with it every package the notebooks
import (its declared dependencies, pyproject.toml); in the others it finds ``helpers`` and does
nothing. Each notebook's first cells run, and its check cells print "not implemented yet".
"""

import shutil
import subprocess
import sys

import nbformat
import pytest

from helpers.notebooks.common import ROOT, solution_paths
from helpers.notebooks.student import generate

from .test_student_notebooks import run_unfilled

TORCH = "torch==2.13.0"  # the CPU build in the local pip cache, as `make` installs it
# torch's version and the time its files were written: the same before and after = not reinstalled
TORCH_FILE = "import os, torch; print(torch.__version__, os.stat(torch.__file__).st_mtime_ns)"


def run(*cmd, **kw) -> str:
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, **kw)
    assert done.returncode == 0, f"{cmd}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def classroom(tmp_path_factory):
    """(folder of student notebooks, kernel name, the fresh environment's python)."""
    tmp = tmp_path_factory.mktemp("wheel")
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", tmp / "dist", ROOT)
    (wheel,) = (tmp / "dist").glob("*.whl")

    env = tmp / "venv"  # only torch and a kernel, like Colab before the install cell
    run(sys.executable, "-m", "venv", env)
    python = env / "bin" / "python"
    run(python, "-m", "pip", "install", "--quiet", TORCH, "ipykernel")
    run(python, "-m", "ipykernel", "install", "--prefix", tmp / "jupyter", "--name", "colab")

    course = tmp / "course"  # the generator's input: the solved notebooks
    shutil.copytree(ROOT / "solutions", course / "solutions")
    assert generate(course, repo=str(wheel)) == []
    room = tmp / "room"  # an empty folder with the student notebooks alone
    room.mkdir()
    for path in (course / "notebooks").glob("*.ipynb"):
        shutil.copy(path, room)
    return room, tmp / "jupyter" / "share" / "jupyter", python


@pytest.mark.slow
def test_student_notebooks_run_with_only_torch_and_the_wheel(classroom, monkeypatch):
    room, jupyter_path, python = classroom
    monkeypatch.setenv("JUPYTER_PATH", str(jupyter_path))
    monkeypatch.delenv("HELPERS_BLOCKS", raising=False)
    monkeypatch.delenv("PYTHONPATH", raising=False)  # the kernel must not see this checkout
    monkeypatch.chdir(room)
    missing = run(python, "-c", "import importlib.util as u; print(u.find_spec('helpers'))")
    assert missing.strip() == "None"  # installed by the first notebook's install cell
    torch_before = run(python, "-c", TORCH_FILE)
    for name in [p.name for p in solution_paths()]:
        nb = nbformat.read(str(room / name), as_version=4)
        run_unfilled(nb, room, name, kernel_name="colab", timeout=300)
        code = [c for c in nb.cells if c.cell_type == "code"]
        assert code[0].metadata["course"]["setup"]
        for cell in code[:2]:  # the install cell, then the notebook's imports
            errors = [f"{o.ename}: {o.evalue}" for o in cell.outputs if o.output_type == "error"]
            assert not errors, f"{name}: {errors}\n{cell.source}"
    assert run(python, "-c", TORCH_FILE) == torch_before  # the install cells kept torch
