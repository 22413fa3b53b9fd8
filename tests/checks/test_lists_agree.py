"""The lists that name exercises agree (issue 28): a notebook's ``check("...")`` ids, the
registry, and the tests' per-exercise tables. Forgetting one list used to make a test skip a
new exercise without a word; here it fails, naming the list."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import torch

from helpers.checks import EXERCISES
from helpers.notebook_files import notebook_number
from tests.checks.mutation_probes import PROBES, SOURCES, probe_by_check, probe_for, same

ROOT = Path(__file__).resolve().parents[2]
CHECK_CALL = re.compile(r"""\bcheck\(\s*["'](\d\d[a-z]?\.\w+)["']""")  # 07.x, 07b.x


def _checked(folder: str) -> dict[str, list[str]]:
    """{exercise id: the notebooks of ``folder`` whose code cells call check() with it}."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / folder).glob("[0-9][0-9]*_*.ipynb")):
        if notebook_number(path) is None:
            continue
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        for exercise in CHECK_CALL.findall(code):
            found.setdefault(exercise, []).append(path.name)
    return found


@pytest.mark.parametrize("folder", ["solutions", "notebooks"])
def test_every_check_call_names_a_registered_exercise_of_its_notebook(folder):
    checked = _checked(folder)
    unknown = sorted(set(checked) - set(EXERCISES))
    assert not unknown, f"{folder}: check() ids the registry does not know: {unknown}"
    unchecked = sorted(set(EXERCISES) - set(checked))
    assert not unchecked, f"{folder}: registered exercises no notebook checks: {unchecked}"
    elsewhere = {
        e: nbs
        for e, nbs in checked.items()
        if any(notebook_number(n) != EXERCISES[e].notebook for n in nbs if e in EXERCISES)
    }
    assert not elsewhere, f"{folder}: exercises checked outside their own notebook: {elsewhere}"


def test_every_exercise_with_a_reference_has_its_mutation_source_and_probe():
    """A trained-model exercise and a question have no reference to mutate; every other one has
    its source (derived) and a probe (its own, or the check's cases); a probe written for an id
    the registry does not know is an error."""
    no_code = ("trained", "question")
    with_reference = {i for i, ex in EXERCISES.items() if getattr(ex, "kind", "") not in no_code}
    assert set(SOURCES) == with_reference, sorted(set(SOURCES) ^ with_reference)
    assert set(PROBES) <= set(SOURCES), sorted(set(PROBES) - set(SOURCES))
    assert all(callable(probe_for(i)) for i in SOURCES)


def test_the_checks_cases_tell_a_wrong_answer_from_the_reference():
    """The probe an exercise without one of its own gets: equal for the same function, not for
    a wrong one (|x| for relu)."""
    probe = probe_by_check("00.relu")
    relu, wrong = probe(lambda x: x * (x > 0)), probe(lambda x: x.abs())
    assert same(relu, probe(lambda x: torch.where(x > 0, x, torch.zeros_like(x))))
    assert not same(relu, wrong)


def test_every_exercise_is_tested_in_its_notebooks_test_file():
    """tests/checks/test_nbNN.py names every exercise of notebook NN (the solution passes, the
    stub fails, each named mistake), and no exercise the registry does not know; an exercise
    whose catalogue edits its reference64 is tested by test_catalogue.py (the reference passes,
    each catalogued mistake is named) and needs no more."""
    for notebook in sorted({ex.notebook for ex in EXERCISES.values()}):
        path = ROOT / "tests" / "checks" / f"test_nb{notebook}.py"
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        named = set(re.findall(rf"""["']({notebook}\.\w+)["']""", text))
        named |= {i for i, ex in EXERCISES.items() if ex.notebook == notebook and ex.reference64}
        mine = {i for i, ex in EXERCISES.items() if ex.notebook == notebook}
        assert mine <= named, f"test_nb{notebook}.py never names {sorted(mine - named)}"
        assert named <= set(EXERCISES), f"test_nb{notebook}.py names {sorted(named - mine)}"


def test_each_notebook_orders_its_exercises_as_its_cells_check_them():
    """exercises/NN/__init__.py's ORDER (the grader's rows) is the solved notebook's order."""
    import importlib

    for path in sorted((ROOT / "solutions").glob("[0-9][0-9]*_*.ipynb")):
        number = notebook_number(path)
        if number is None:
            continue
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        called = list(dict.fromkeys(e.split(".", 1)[1] for e in CHECK_CALL.findall(code)))
        order = importlib.import_module(f"helpers.checks.exercises.{number}").ORDER
        assert list(order) == called, f"{path.name}: ORDER is not the order of its check() cells"
