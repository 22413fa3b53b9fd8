"""The runtime budget: budgets by notebook, the 2x noise allowance, nbval timings, tables."""

import json

import pytest

from helpers.notebooks import bench


@pytest.mark.parametrize(
    "path, budget",
    [
        ("solutions/00_welcome.ipynb", 60.0),
        ("solutions/05_transformer_block.ipynb", 60.0),
        ("solutions/07b_language_model.ipynb", 60.0),
        ("solutions/09_vision_transformer.ipynb", 90.0),
        ("09_vit.ipynb", 90.0),
        ("scratch.ipynb", 60.0),
        ("solutions/open/07b_open_exercises.ipynb", 30.0),  # a worked solution of open exercises
    ],
)
def test_budget_for(path, budget):
    assert bench.budget_for(path) == budget


def test_over_budget_uses_the_noise_factor():
    seconds = {
        "solutions/01_a.ipynb": 119.0,
        "solutions/02_b.ipynb": 121.0,
        "solutions/09_c.ipynb": 179.0,
    }
    assert bench.over_budget(seconds, factor=1.0) == [
        "solutions/01_a.ipynb: 119.0 s, over its 60 s budget (60 s)",
        "solutions/02_b.ipynb: 121.0 s, over its 60 s budget (60 s)",
        "solutions/09_c.ipynb: 179.0 s, over its 90 s budget (90 s)",
    ]
    assert bench.over_budget(seconds, factor=2.0) == [
        "solutions/02_b.ipynb: 121.0 s, over 2 x its 60 s budget (120 s)"
    ]


def test_nbval_times_sum_cells_per_notebook():
    times = bench.NbvalTimes()
    times.add("solutions/01_a.ipynb::Cell 0", 50.0)  # kernel start is in the first setup
    times.add("solutions/01_a.ipynb::Cell 1", 71.0)
    times.add("solutions/09_c.ipynb::Cell 0", 170.0)
    times.add("tests/test_bench.py::test_budget_for", 500.0)  # not a notebook
    assert times.seconds == {"solutions/01_a.ipynb": 121.0, "solutions/09_c.ipynb": 170.0}
    assert times.problems() == ["solutions/01_a.ipynb: 121.0 s, over 2 x its 60 s budget (120 s)"]
    assert times.summary()[1] == "solutions/09_c.ipynb: 170.0 s (budget 90 s)"


def test_tables(tmp_path, monkeypatch):
    rows = [
        bench.BenchRow("00_welcome.ipynb", 4.2, 180.4, 60.0),
        bench.BenchRow("09_vit.ipynb", 95.0, None, 90.0),
        bench.BenchRow("03_mha.ipynb", 2.0, None, 60.0, error="CellExecutionError: boom"),
    ]
    info = {"platform": "Linux", "python": "3.11", "cpus": 2, "date": "2026-01-01 00:00 UTC"}
    md = bench.markdown(rows, info)
    assert "| 00_welcome.ipynb | 4.2 | 60 | 180 | yes |" in md
    assert "| 09_vit.ipynb | 95.0 | 90 | ? | **no** |" in md
    assert "| 03_mha.ipynb | 2.0 | 60 | ? | **error** |" in md
    assert "| **all** | **101.2** | 300 | | yes |" in md
    assert not rows[2].within_budget

    monkeypatch.setattr(bench, "measure", lambda path, timeout: rows[0])
    monkeypatch.setattr(bench, "machine", lambda: info)
    assert bench.bench([tmp_path / "00_welcome.ipynb"], tmp_path / "out", 10, strict=True) == 0
    data = json.loads((tmp_path / "out" / "bench.json").read_text())
    assert data["notebooks"][0]["notebook"] == "00_welcome.ipynb"
    assert data["notebooks"][0]["within_budget"] is True
    monkeypatch.setattr(bench, "measure", lambda path, timeout: rows[1])
    assert bench.bench([tmp_path / "09_vit.ipynb"], None, 10, strict=True) == 1
    assert bench.bench([tmp_path / "09_vit.ipynb"], None, 10, strict=False) == 0
