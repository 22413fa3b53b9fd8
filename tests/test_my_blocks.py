"""Your code, all the way up: ``export --mine`` and ``HELPERS_BLOCKS=mine`` (helpers/my_blocks.py).

Each run that imports ``helpers.blocks`` with the learner's blocks happens in a process of its
own (a subprocess or a notebook kernel), so this test process keeps the reference blocks.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from helpers.notebooks.common import BEGIN, END, ROOT, notebook_number, solution_paths
from helpers.notebooks.kernel import run_fresh

LATER = ["04", "05", "06", "07", "07b", "08", "09"]


def learner_copy(folder: Path, numbers: list[str], bug: tuple[str, str, str] | None = None) -> None:
    """The solved notebooks ``numbers`` as a learner's filled-in set: the answers without the
    solution markers, outputs cleared; ``bug`` = (number, old, new) edits one answer."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in solution_paths():
        if notebook_number(path) not in numbers:
            continue
        nb = nbformat.read(str(path), as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code":
                lines = cell.source.split("\n")
                cell.source = "\n".join(
                    line for line in lines if not line.strip().startswith((BEGIN, END))
                )
                cell.outputs, cell.execution_count = [], None
                if bug and bug[0] == notebook_number(path) and bug[1] in cell.source:
                    cell.source = cell.source.replace(bug[1], bug[2])
        nbformat.write(nb, str(folder / path.name))


def export_mine(source: Path) -> dict:
    out = source / "my_blocks"
    done = subprocess.run(
        [sys.executable, "-m", "helpers", "export", "--mine", "--from", source, "--to", out],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads((out / "manifest.json").read_text())


def python(code: str, env: dict[str, str]) -> str:
    """Run ``code`` in a fresh interpreter with ``env`` added (HELPERS_BLOCKS removed first)."""
    base = {k: v for k, v in os.environ.items() if k != "HELPERS_BLOCKS"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**base, **env},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


PROBE = """
import helpers
from helpers.blocks.layers import FeedForward, LayerNorm, TransformerEncoderBlock
from helpers.blocks.multihead import MultiHeadAttention
block = TransformerEncoderBlock(8, 2, 16)
for obj in (MultiHeadAttention, LayerNorm, FeedForward, TransformerEncoderBlock,
            type(block.norm1), type(block.self_attn)):
    print(obj.__name__, obj.__module__)
helpers.blocks_in_use("layers")
"""


@pytest.fixture(scope="module")
def buggy_layernorm(tmp_path_factory) -> Path:
    """A learner's 02, 03 and 05 whose LayerNorm uses the unbiased variance (check fails)."""
    folder = tmp_path_factory.mktemp("learner")
    learner_copy(folder, ["02", "03", "05"], ("05", "unbiased=False", "unbiased=True"))
    return folder


def test_a_block_whose_check_fails_falls_back_to_the_reference(buggy_layernorm):
    manifest = export_mine(buggy_layernorm)
    layers = manifest["modules"]["layers"]["blocks"]
    assert layers["LayerNorm"]["status"] == "failed"
    assert layers["FeedForward"]["status"] == "passed"
    assert layers["TransformerEncoderBlock"]["status"] == "passed"
    assert manifest["modules"]["multihead"]["blocks"]["MultiHeadAttention"]["status"] == "passed"

    env = {"HELPERS_BLOCKS": "mine", "HELPERS_MY_BLOCKS": str(buggy_layernorm / "my_blocks")}
    out = python(PROBE, env).splitlines()
    assert out[:6] == [
        "MultiHeadAttention my_blocks.multihead",
        "LayerNorm helpers.blocks.layers",  # failed: the reference
        "FeedForward my_blocks.layers",
        "TransformerEncoderBlock my_blocks.layers",
        # the learner's block that passed is built on the reference LayerNorm, not the buggy one
        "LayerNorm helpers.blocks.layers",
        "MultiHeadAttention my_blocks.multihead",
    ]
    assert out[6].startswith("Earlier blocks (HELPERS_BLOCKS=mine)")
    expected = (
        "05 layers yours: FeedForward, TransformerEncoderBlock; reference (your check failed): "
    )
    assert out[-1].split() == (expected + "LayerNorm").split()


def test_without_the_variable_nothing_changes(buggy_layernorm):
    if not (buggy_layernorm / "my_blocks" / "manifest.json").exists():
        export_mine(buggy_layernorm)
    out = python(PROBE, {"HELPERS_MY_BLOCKS": str(buggy_layernorm / "my_blocks")}).splitlines()
    assert [line.split()[1] for line in out[:6]] == [
        "helpers.blocks.multihead",
        "helpers.blocks.layers",
        "helpers.blocks.layers",
        "helpers.blocks.layers",
        "helpers.blocks.layers",
        "helpers.blocks.multihead",
    ]
    assert out[6].startswith("Earlier blocks: the course's reference versions")
    assert "yours:" not in "\n".join(out)


def stdout(cell) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


@pytest.fixture(scope="module")
def learner_set(tmp_path_factory) -> Path:
    """The solved notebooks 02-09 as a learner's correct set, exported with ``--mine``."""
    folder = tmp_path_factory.mktemp("learner")
    learner_copy(folder, ["02", "03"] + LATER)
    manifest = export_mine(folder)
    statuses = {
        b["exercise"]: b["status"]
        for m in manifest["modules"].values()
        for b in m["blocks"].values()
    }
    assert set(statuses.values()) == {"passed"}, statuses
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("number", LATER)
def test_later_notebooks_run_on_the_learners_blocks(number, learner_set, monkeypatch):
    """04-09 on the learner's blocks: the first cell says so, every check passes, and the
    accuracy thresholds print what the stored solutions print."""
    monkeypatch.setenv("HELPERS_BLOCKS", "mine")
    monkeypatch.setenv("HELPERS_MY_BLOCKS", str(learner_set / "my_blocks"))
    (path,) = learner_set.glob(f"{number}_*.ipynb")
    nb = nbformat.read(str(path), as_version=4)
    seconds, error = run_fresh(nb, learner_set, timeout=300)
    assert error is None, f"{path.name}: {error}"

    first = stdout(next(c for c in nb.cells if c.cell_type == "code"))
    assert first.startswith("Earlier blocks (HELPERS_BLOCKS=mine)"), first
    blocks = first.splitlines()[1:]  # "  03 multihead  yours: MultiHeadAttention"
    assert blocks and all(line.split()[2] == "yours:" for line in blocks), first
    assert "reference" not in "".join(blocks), first
    solved = nbformat.read(str(ROOT / "solutions" / path.name), as_version=4)
    thresholds = 0
    for mine, ref in zip(nb.cells, solved.cells, strict=True):
        if ref.cell_type != "code" or "NBVAL_IGNORE_OUTPUT" in ref.source:
            continue
        text = stdout(mine)
        assert "❌" not in text, f"{path.name}: a check failed on the learner's blocks:\n{text}"
        expected = [line for line in stdout(ref).splitlines() if ">=" in line]
        assert [line for line in text.splitlines() if ">=" in line] == expected
        thresholds += len(expected)
    if number in ("06", "07", "09"):  # the notebooks that train: their accuracy thresholds
        assert thresholds > 0, f"{path.name}: no accuracy threshold line compared"


def test_blocks_live_beside_the_notebooks_not_in_the_package(tmp_path):
    """``export --mine`` run in the learner's folder (renamed copies, as Colab saves them)
    writes ./my_blocks there; a kernel started in that folder finds them with no other setting."""
    learner_copy(tmp_path, ["02", "03"])
    (tmp_path / "03_multi_head_attention.ipynb").rename(tmp_path / "Copy of 03_mha.ipynb")
    base = {k: v for k, v in os.environ.items() if k not in ("HELPERS_BLOCKS", "HELPERS_MY_BLOCKS")}
    done = subprocess.run(
        [sys.executable, "-m", "helpers", "export", "--mine"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=base,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    manifest = json.loads((tmp_path / "my_blocks" / "manifest.json").read_text())
    assert manifest["modules"]["multihead"]["blocks"]["MultiHeadAttention"]["status"] == "passed"
    done = subprocess.run(
        [sys.executable, "-c", PROBE.replace('"layers"', '"multihead"')],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**base, "HELPERS_BLOCKS": "mine"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "MultiHeadAttention my_blocks.multihead" in done.stdout.splitlines()


def test_the_blocks_listed_as_exercises_are_the_checked_exercises():
    """The exporter reads the exercises from the notebooks' cells (my_blocks.py imports no
    checks): they must be the public names the checks registry knows, no more and no fewer."""
    import importlib
    import pkgutil

    import helpers.blocks
    from helpers import my_blocks
    from helpers.checks import EXERCISES

    for info in pkgutil.iter_modules(helpers.blocks.__path__):
        importlib.import_module(f"helpers.blocks.{info.name}")
    assert len(my_blocks.NOTEBOOK) == len(list(pkgutil.iter_modules(helpers.blocks.__path__)))
    for module, nb in my_blocks.NOTEBOOK.items():
        registered = tuple(n for n in my_blocks.IN_USE[module] if f"{nb}.{n}" in EXERCISES)
        assert registered, module
        assert my_blocks.EXERCISES[module] == registered, module
