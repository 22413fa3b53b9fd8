"""Checked conceptual questions (helpers/checks/questions.py) and their student cells."""

import pytest
import torch

from helpers.checks import evaluate
from helpers.checks.questions import Question
from helpers.checks.run.runner import run_probe
from helpers.notebooks.student import strip_code


class Choice(Question):
    id = "00.q_choice"
    answer = "b"
    choices = {"a": "a is wrong because of this.", "b": "", "c": "c is wrong because of that."}
    explanation = "b, because of both."


class Number(Question):
    id = "00.q_number"
    answer = 4 * 64**2 + 4 * 64
    wrong_numbers = {4 * 64**2: "the four biases are parameters too."}
    explanation = "4 d^2 weights and 4 d biases."


def verdict(ex: Question, answer):
    probes = list(ex.probes(torch.Generator()))
    outcomes = [(p, run_probe(ex, p, answer, torch.device("cpu"))) for p in probes]
    return evaluate(ex, outcomes)


@pytest.mark.parametrize("answer", ["b", "B", " (b) "])
def test_the_right_choice_passes_and_says_why(answer):
    result = verdict(Choice(), answer)
    assert result.passed and result.messages == ["b, because of both."]


def test_a_wrong_choice_is_told_what_is_wrong_with_it_not_the_answer():
    result = verdict(Choice(), "c")
    assert not result.passed and result.mistake == "00.q_choice/wrong_choice"
    assert "c is wrong because of that." in result.messages[0]
    assert "both" not in result.messages[0]


@pytest.mark.parametrize("answer", ["d", 2, ["b"]])
def test_an_answer_that_is_no_choice_is_told_the_choices(answer):
    result = verdict(Choice(), answer)
    assert result.mistake == "00.q_choice/not_a_choice" and '"a", "b", "c"' in result.messages[0]


@pytest.mark.parametrize("answer", [..., None])
def test_an_unanswered_question_is_missing(answer):
    assert verdict(Choice(), answer).status == "missing"


@pytest.mark.parametrize("answer", [16640, 16640.0, torch.tensor(16640)])
def test_the_right_number_passes(answer):
    assert verdict(Number(), answer).passed


def test_numbers_known_wrong_and_unknown():
    assert "biases" in verdict(Number(), 16384).messages[0]
    result = verdict(Number(), 33280)
    assert result.mistake == "00.q_number/wrong_number" and "too large" in result.messages[0]
    assert verdict(Number(), "16640").mistake == "00.q_number/not_a_number"
    assert verdict(Number(), True).mistake == "00.q_number/not_a_number"


def test_the_student_cell_keeps_the_name_and_leaves_the_value():
    solved = '### BEGIN SOLUTION: "a", "b" or "c"\nq_choice = "b"\n### END SOLUTION\n'
    assert strip_code(solved, "here", None) == 'q_choice = ...  # TODO: "a", "b" or "c"\n'
    code = "### BEGIN SOLUTION\nx = 1\ny = 2\n### END SOLUTION"
    assert "raise NotImplementedError" in strip_code(code, "here", None)
