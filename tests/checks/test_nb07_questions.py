"""Notebook 07's conceptual question: the right number passes, the known wrong ones are told
where they come from."""

import pytest


def test_the_right_number_passes(run_check):
    r = run_check("07.q_decoder_positions", 66)
    assert r.passed and "1 + 2 + ... + 11" in r.messages[0]


@pytest.mark.parametrize(
    "answer, words",
    [(11, "KV cache"), (12, "length"), (78, "12 tokens"), (121, "BOS alone"), (144, "BOS alone")],
)
def test_known_wrong_numbers_are_explained(run_check, answer, words):
    r = run_check("07.q_decoder_positions", answer)
    assert r.mistake == "07.q_decoder_positions/known_wrong_number" and words in r.messages[0]


def test_other_numbers_and_non_numbers(run_check):
    assert run_check("07.q_decoder_positions", 40).mistake == "07.q_decoder_positions/wrong_number"
    assert (
        run_check("07.q_decoder_positions", "66").mistake == "07.q_decoder_positions/not_a_number"
    )
