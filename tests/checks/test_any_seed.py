"""A property every correct answer has: it passes whatever seed the grader draws.

The grader draws a new seed per batch (``check(..., seed=...)``); a check whose tolerance is
met by the reference only for most seeds takes points from right answers at random (05.LayerNorm's
+3000 case failed the reference for 6 seeds in 150 before its tolerance was measured)."""

from __future__ import annotations

import pytest

from tests.checks.mutation import reference_source
from tests.checks.mutation_probes import SOURCES

SEEDS = range(12)  # the reference failed 05.LayerNorm for seeds 7 and 10 among these


@pytest.mark.parametrize("exercise", list(SOURCES))
def test_the_reference_passes_for_every_seed(exercise, run_check):
    source, namespace = reference_source(exercise)
    exec(source, namespace)
    candidate = namespace[exercise.split(".", 1)[1]]
    failed = {}
    for seed in SEEDS:
        result = run_check(exercise, candidate, seed=seed)
        if not result.passed:
            failed[seed] = result.messages[:1]
    assert not failed, f"the reference fails {exercise} for seeds {failed}"
