"""The mechanical mutation tester (tests/checks/mutation.py) on one exercise, a few mutants."""

import pytest

from tests.checks.mutation import judge_mutant, mutants, reference_source, run_probe
from tests.checks.mutation_probes import SOURCES, same
from tests.speed import scaled


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


def test_a_mutant_that_loops_forever_on_the_checks_cases_is_stopped():
    """probe_by_check runs every case through the checks' runner, which reports an exception
    (the alarm's TimeoutError too) as the case's outcome and goes on: the limit fires again
    until the probe returns, so the next case cannot run forever either."""
    import time

    def beam_search(model, src, max_len, bos_id, eos_id, beam_size):
        while True:
            pass

    start = time.monotonic()
    status, out = run_probe("07.beam_search", beam_search, seconds=0.5)
    assert status == "crash" and out.startswith("TimeoutError"), (status, out)
    assert time.monotonic() - start < scaled(10)
