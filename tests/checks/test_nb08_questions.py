"""Notebook 08's conceptual questions: the right answers pass, each wrong one is told what is
wrong with it (not the answer)."""

import pytest


def test_memory_growth(run_check):
    assert run_check("08.q_memory_growth", 4).passed
    for wrong in (2, 8, 16):
        r = run_check("08.q_memory_growth", wrong)
        assert r.mistake == "08.q_memory_growth/known_wrong_number", r.messages
    assert run_check("08.q_memory_growth", 3).mistake == "08.q_memory_growth/wrong_number"


@pytest.mark.parametrize("letter", ["a", "c", "d"])
def test_kv_step_wrong_choices(run_check, letter):
    r = run_check("08.q_kv_step", letter)
    assert r.mistake == "08.q_kv_step/wrong_choice" and '"b"' not in r.messages[0]


def test_kv_step_right_choice(run_check):
    r = run_check("08.q_kv_step", "B")
    assert r.passed and "O(t d)" in r.messages[0]
