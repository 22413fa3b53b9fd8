"""Checks of notebook 04: the solution passes, the stub is 'not implemented', mistakes are named."""

import math
from pathlib import Path

import pytest
import torch
from torch import nn

from .conftest import stub


def table(max_len, d_model):
    pos = torch.arange(max_len, dtype=torch.float32)[:, None]
    i2 = torch.arange(0, d_model, 2, dtype=torch.float32)
    angle = pos * 10000.0 ** (-i2 / d_model)  # (max_len, d_model // 2)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2], pe[:, 1::2] = angle.sin(), angle.cos()
    return pe


def sinusoidal_positional_encoding(max_len, d_model):
    return table(max_len, d_model)


def make_pe_module(
    build=sinusoidal_positional_encoding,
    as_parameter=False,
    plain=False,
    forward=lambda self, x: x + self.pe[: x.size(1)],
    shape=lambda pe: pe,
):
    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, max_len=5000, dropout=0.0):
            super().__init__()
            pe = shape(build(max_len, d_model))
            if as_parameter:
                self.pe = nn.Parameter(pe, requires_grad=False)
            elif plain:
                self.pe = pe
            else:
                self.register_buffer("pe", pe)
            self.dropout = nn.Dropout(dropout)

        def forward(self, x):
            return self.dropout(forward(self, x))

    return PositionalEncoding


def test_table_solution_passes(run_check):
    r = run_check("04.sinusoidal_positional_encoding", sinusoidal_positional_encoding)
    assert r.passed and r.points == r.max_points == 2


def test_table_written_differently_passes(run_check):
    def exp_log(max_len, d_model):  # the Annotated Transformer's div_term
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        return pe

    def stacked(max_len, d_model):
        pos = torch.arange(max_len)[:, None].float()
        freq = 1.0 / 10000 ** (torch.arange(d_model // 2) * 2 / d_model)
        ang = pos * freq
        return torch.stack([ang.sin(), ang.cos()], dim=-1).flatten(1)

    for fn in (exp_log, stacked):
        assert run_check("04.sinusoidal_positional_encoding", fn).passed


def test_table_stub(run_check):
    r = run_check("04.sinusoidal_positional_encoding", stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


@pytest.mark.parametrize(
    "candidate, words",  # the catalogue's mistakes: tests/checks/test_catalogue.py
    [
        (lambda n, d: table(n, d).T, "one row per position"),
        (lambda n, d: table(n, d).double(), "dtype torch.float64"),
    ],
)
def test_table_mistakes(run_check, candidate, words):
    r = run_check("04.sinusoidal_positional_encoding", candidate)
    assert not r.passed
    assert words in r.messages[0], r.messages


def test_module_solution_passes(run_check):
    r = run_check("04.PositionalEncoding", make_pe_module())
    assert r.passed and r.points == 2


def test_module_batched_buffer_shape_passes(run_check):
    # a (1, max_len, d_model) buffer, as many tutorials store it
    module = make_pe_module(
        shape=lambda pe: pe[None], forward=lambda self, x: x + self.pe[:, : x.size(1)]
    )
    assert run_check("04.PositionalEncoding", module).passed


def test_module_stub(run_check):
    class PositionalEncoding(nn.Module):
        def __init__(self, d_model, max_len=5000, dropout=0.0):
            super().__init__()
            raise NotImplementedError("TODO")

    r = run_check("04.PositionalEncoding", PositionalEncoding)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


@pytest.mark.parametrize(
    "module, words",  # the catalogue's mistakes: tests/checks/test_catalogue.py
    [
        (make_pe_module(as_parameter=True), "registered as a parameter"),
        (make_pe_module(plain=True), "no buffer named `pe`"),
        (make_pe_module(forward=lambda self, x: x + self.pe), "RuntimeError"),
        (make_pe_module(build=lambda n, d: table(n, d).double()), "dtype torch.float64"),
    ],
)
def test_module_mistakes(run_check, module, words):
    r = run_check("04.PositionalEncoding", module)
    assert not r.passed
    assert words in r.messages[0], r.messages


def test_module_not_a_module(run_check):
    r = run_check("04.PositionalEncoding", sinusoidal_positional_encoding)
    assert not r.passed and ("nn.Module" in r.messages[0] or "TypeError" in r.messages[0]), (
        r.messages
    )


def test_state_that_does_not_fit_is_the_checks_step_not_the_learners_error():
    from helpers.checks.run.calling import STATE_MISMATCH, StateMismatch, load_state

    module = torch.nn.Linear(3, 2)
    with pytest.raises(StateMismatch) as info:
        load_state(
            module, {"weight": torch.zeros(2, 4), "bias": torch.zeros(2), "pe": torch.ones(1)}
        )
    msg = str(info.value)
    assert msg.startswith(STATE_MISMATCH) and "your code raised" not in msg
    assert "weight is (2, 3) in your module, (2, 4) in the check's" in msg and "no pe" in msg


def test_rope_and_the_questions_have_their_own_file():
    """tests/checks/test_nb04_rope.py tests these: the solution passes, each mistake is named."""
    text = (Path(__file__).parent / "test_nb04_rope.py").read_text(encoding="utf-8")
    for exercise_id in ("04.apply_rope", "04.q_permutation", "04.q_period"):
        assert f'"{exercise_id}"' in text
