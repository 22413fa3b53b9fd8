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
