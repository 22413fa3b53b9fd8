"""Fixtures for testing the checks: run a candidate and return the result quietly."""

import pytest

from helpers.checks import check
from helpers.checks.edits import search, source
from tests import speed


@pytest.fixture(autouse=True)
def _edit_search_at_idle_speed(monkeypatch):
    """The edit search's time limits (helpers/checks/edits/: the whole search, and each
    mutant's run) times the machine's slowdown (tests/speed.py): on a loaded machine a check
    names the mistake it names on an idle one."""
    monkeypatch.setattr(search, "BUDGET_S", search.BUDGET_S * speed.SLOWDOWN)
    monkeypatch.setattr(source, "MUTANT_S", source.MUTANT_S * speed.SLOWDOWN)


@pytest.fixture
def run_check():
    def run(exercise_id, candidate, seed=None):
        return check(exercise_id, candidate, seed=seed, quiet=True)

    return run


def stub(*args, **kwargs):
    raise NotImplementedError("TODO")


#: sweeps: check() over hundreds of versions, seeds or edits of the references (most of this
#: folder's CPU time), and the trained-model tests below. `make test` runs them; `make test-fast`
#: (the edit-test loop) leaves them out
SWEEPS = {
    "test_any_seed.py",
    "test_devices.py",
    "test_edits.py",
    "test_heldout.py",
    "test_no_wrong_causes.py",
}


#: tests that train a model (its fixture) or check trained models many times (a third of the
#: rest's CPU time), by a word of their names
TRAINED_FIXTURES = {"trained_model", "trained_vit"}
TRAINED = {
    "test_nb06.py": ("fingerprint", "hand_set_weights", "under_trained"),
    "test_nb09.py": ("fingerprint",),
}


def pytest_collection_modifyitems(items):
    for item in items:
        if item.path.parent.name != "checks":
            continue
        words = TRAINED.get(item.path.name, ())
        trains = TRAINED_FIXTURES & set(getattr(item, "fixturenames", ()))
        trained = trains or any(w in item.name for w in words)
        if item.path.name in SWEEPS or trained:
            item.add_marker(pytest.mark.sweep)
        if trained:  # a model trained for a test: the system tier (conftest.py: SYSTEM)
            item.add_marker(pytest.mark.system)
