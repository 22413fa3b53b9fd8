"""The mechanical mutation tester (tests/checks/mutation.py) on one exercise, a few mutants."""

import pytest

from tests.checks.mutation import judge_mutant, mutants, reference_source, run_probe
from tests.checks.mutation_probes import SOURCES, same


@pytest.mark.slow
def test_every_output_changing_mutant_of_layernorm_is_rejected():
    changed, counts = mutants("05.LayerNorm", max_mutants=6)
    assert counts["changed"] >= 6, counts  # the mutator finds sites that matter
    rows = [judge_mutant(m) for m in changed]
    accepted = [r["site"] for r in rows if r["passed"] is not False]
    assert not accepted, f"mutants that change the output but pass the check: {accepted}"


def test_the_unmutated_reference_matches_itself():
    source, ns = reference_source("02.causal_mask")
    exec(source, ns)
    obj = ns[SOURCES["02.causal_mask"][2]]
    (status, a), (_, b) = run_probe("02.causal_mask", obj), run_probe("02.causal_mask", obj)
    assert status == "ok" and same(a, b)
