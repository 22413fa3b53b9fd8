"""Checked conceptual questions: a prediction the learner writes down before the notebook shows
it (a choice among letters, or a number), and a check that explains the right answer.

A notebook's questions are data, the table ``QUESTIONS`` of ``exercises/NN/questions.py``
(each entry a :class:`Question`'s fields; the package registers them)::

    QUESTIONS = {
        "02.q_scaling": {
            "title": "what the scores' spread does to the softmax",
            "answer": "b",
            "choices": {"a": "why a is wrong ...", "b": "", "c": "why c is wrong ..."},
            "explanation": "why b is right ...",
        },
    }

The solved notebook's cell holds ``q_scaling = "b"`` between the solution markers: the
student version keeps the name and leaves its value to the learner (``q_scaling = ...``).
A wrong choice is told what is wrong with it, not which one is right; a right answer is told
why. The grader reads the variable ``q_scaling`` from the learner's kernel, as for any exercise.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from .framework import Exercise, Fail, Probe, add


class Question(Exercise):
    kind = "question"
    points = 0.5
    #: the right choice (a letter) or the right number
    answer: str | float = ""
    #: why the right answer is right: the message of a passed check
    explanation: str = ""
    #: a multiple-choice question: each letter -> what is wrong with that choice (the right
    #: letter's text is not used); empty for a question answered with a number
    choices: dict[str, str] = {}
    #: a numeric answer within this relative tolerance passes
    rel_tol: float = 0.01
    #: known wrong numbers -> what they come from (a numeric question's named mistakes)
    wrong_numbers: dict[float, str] = {}

    def __init__(self, **fields):
        unknown = set(fields) - set(vars(Question)) - set(vars(Exercise))
        if unknown:
            raise ValueError(f"question {fields.get('id')!r}: no field {sorted(unknown)}")
        vars(self).update(fields)

    def probes(self, gen: torch.Generator):
        yield Probe("your answer", runner="value", cpu_only=True)

    def judge(self, probe: Probe, out: Any) -> None:
        if self.choices:
            self._judge_choice(out)
        else:
            self._judge_number(out)

    def _judge_choice(self, out: Any) -> None:
        letters = ", ".join(f'"{c}"' for c in self.choices)
        given = out.strip().strip("()").strip().lower() if isinstance(out, str) else None
        if given not in self.choices:
            raise Fail(f"answer with one letter as a string, one of {letters}; got {out!r}.",
                       "not_a_choice")  # fmt: skip
        if given != self.answer:
            raise Fail(f'not "{given}": {self.choices[given]}', "wrong_choice")

    def _judge_number(self, out: Any) -> None:
        if isinstance(out, torch.Tensor) and out.numel() == 1:
            out = out.item()
        if isinstance(out, bool) or not isinstance(out, (int, float)) or not math.isfinite(out):
            raise Fail(f"answer with a number (an int or a float); got {out!r}.", "not_a_number")
        right = float(self.answer)
        if math.isclose(out, right, rel_tol=self.rel_tol, abs_tol=1e-12):
            return
        for wrong, why in self.wrong_numbers.items():
            if math.isclose(out, wrong, rel_tol=self.rel_tol, abs_tol=1e-12):
                raise Fail(f"not {out:g}: {why}", "known_wrong_number")
        side = "too large" if out > right else "too small"
        ratio = max(abs(out), abs(right)) / max(min(abs(out), abs(right)), 1e-300)
        raise Fail(f"{out:g} is {side} (off by a factor of {ratio:.3g}): go through the count "
                   "again, step by step.", "wrong_number")  # fmt: skip


def register_questions(table: dict[str, dict]) -> None:
    """Every question of a notebook's ``QUESTIONS`` table, registered under its id."""
    for question_id, fields in table.items():
        add(Question(id=question_id, **fields))
