"""Shared helpers for the catalogue of wrong versions (issue 12): each wrong version must fail
with a message that names its mistake; each correct variant must pass. Public API only."""

from __future__ import annotations

import pytest

from helpers import check


def wrong(exercise: str, name: str, candidate, phrase: str, xfail: str | None = None):
    """A wrong version: ``phrase`` is the words a good message names the mistake with.
    ``xfail`` says what the current check misses (strict: it turns red once the check is fixed)."""
    marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
    return pytest.param(exercise, candidate, phrase, id=f"{exercise}-{name}", marks=marks)


def right(exercise: str, name: str, candidate, xfail: str | None = None):
    marks = [pytest.mark.xfail(strict=True, reason=xfail)] if xfail else []
    return pytest.param(exercise, candidate, id=f"{exercise}-{name}", marks=marks)


def assert_named_failure(exercise: str, candidate, phrase: str, seed: int = 0) -> None:
    result = check(exercise, candidate, seed=seed, quiet=True)
    assert not result.passed, f"{exercise}: a wrong version passed"
    # the case's name ("case post-LN, ...: ") may contain the phrase: look at the message only
    text = " ".join(
        m.split(": ", 1)[1] if m.startswith("case ") else m for m in result.messages
    ).lower()
    assert phrase.lower() in text, (
        f"message does not name the mistake ({phrase!r}): {result.messages}"
    )


def assert_passes(exercise: str, candidate, seed: int = 0) -> None:
    result = check(exercise, candidate, seed=seed, quiet=True)
    assert result.passed, result.messages


def make_tests(wrong_cases: list, right_cases: list):
    """The two parametrized test functions of one notebook's catalogue."""

    @pytest.mark.parametrize("exercise, candidate, phrase", wrong_cases)
    def test_wrong_version_fails_with_named_message(exercise, candidate, phrase):
        assert_named_failure(exercise, candidate, phrase)

    @pytest.mark.parametrize("exercise, candidate", right_cases)
    def test_correct_variant_passes(exercise, candidate):
        assert_passes(exercise, candidate)

    return test_wrong_version_fails_with_named_message, test_correct_variant_passes
