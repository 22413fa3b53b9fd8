"""Checks of 09.interpolate_pos_embed: the solution passes, the stub is 'not implemented', a
version written differently passes, and the slips a learner makes are named."""

import pytest
import torch
import torch.nn.functional as F

from .conftest import stub

ID = "09.interpolate_pos_embed"


def interpolate_pos_embed(pos_embed, old_grid, new_grid):
    if tuple(new_grid) == tuple(old_grid):
        return pos_embed
    (old_h, old_w), (new_h, new_w) = old_grid, new_grid
    d = pos_embed.shape[-1]
    cls, rows = pos_embed[:, :1], pos_embed[:, 1:]
    grid = rows.reshape(1, old_h, old_w, d).permute(0, 3, 1, 2)
    grid = F.interpolate(grid, size=(new_h, new_w), mode="bicubic", align_corners=False)
    rows = grid.permute(0, 2, 3, 1).reshape(1, new_h * new_w, d)
    return torch.cat([cls, rows], dim=1)


def interpolate_einops_style(pos_embed, old_grid, new_grid):  # written differently
    """Transposed in and out consistently, size swapped with it, no early return: the same."""
    (oh, ow), (nh, nw) = old_grid, new_grid
    grid = pos_embed[0, 1:].T.reshape(-1, oh, ow).transpose(1, 2)[None]  # (1, d, w, h)
    grid = F.interpolate(grid, size=(nw, nh), mode="bicubic")  # align_corners defaults to False
    rows = grid[0].transpose(1, 2).flatten(1).T  # (nh*nw, d), row-major
    return torch.cat([pos_embed[0, :1], rows])[None]


def test_solution_passes(run_check):
    r = run_check(ID, interpolate_pos_embed)
    assert r.passed and r.points == r.max_points == 3.0, r.messages


def test_written_differently_passes(run_check):
    assert run_check(ID, interpolate_einops_style).passed


def test_stub(run_check):
    r = run_check(ID, stub)
    assert r.status == "missing" and "not implemented yet" in r.messages[0]


def no_cls(pos_embed, old_grid, new_grid):
    return interpolate_pos_embed(pos_embed, old_grid, new_grid)[:, 1:]


def a_grid(pos_embed, old_grid, new_grid):  # not turned back into rows
    d, (h, w) = pos_embed.shape[-1], new_grid
    return no_cls(pos_embed, old_grid, new_grid).reshape(1, h, w, d).permute(0, 3, 1, 2)


@pytest.mark.parametrize(  # the catalogue's mistakes: tests/checks/test_catalogue.py
    "candidate, code, words",
    [(no_cls, "cls_dropped", "CLS row is missing"), (a_grid, "not_rows", "turn it back")],
)
def test_mistakes(run_check, candidate, code, words):
    r = run_check(ID, candidate)
    assert not r.passed
    assert r.mistake == f"{ID}/{code}", (r.mistake, r.messages)
    assert words in r.messages[0], r.messages


def test_timm_s_float32_resize_is_told_its_precision_not_a_transposed_grid(run_check):
    """timm's resample_abs_pos_embed resizes in float32 and casts back: on the float64 case it
    is right to float32 precision only. A transposed read, size and write give the reference's
    own numbers there; a variant that equals the reference names nothing (it was named once)."""

    def timm_cast(pos_embed, old_grid, new_grid):
        out = interpolate_pos_embed(pos_embed.float(), old_grid, new_grid)
        return out.to(pos_embed.dtype)

    r = run_check(ID, timm_cast)
    assert r.mistake == f"{ID}/float32_inside", (r.mistake, r.messages)
    assert "float32 precision" in r.messages[0], r.messages


def test_a_copy_that_breaks_the_gradient_is_caught(run_check):
    def detached(pos_embed, old_grid, new_grid):  # the check names inputs by their parameters
        return interpolate_pos_embed(pos_embed.detach(), old_grid, new_grid)

    r = run_check(ID, detached)
    assert not r.passed and "gradient" in r.messages[0], r.messages


# --------------------------------------------------------------------------- the questions


@pytest.mark.parametrize("answer", [1088, 1088.0, "1088"])
def test_patch_params_question(run_check, answer):
    r = run_check("09.q_patch_params", answer)
    if isinstance(answer, str):
        assert r.mistake == "09.q_patch_params/not_a_number"
    else:
        assert r.passed and "1,024 weights, plus 64 biases" in r.messages[0]


@pytest.mark.parametrize("wrong, words", [(1024, "bias"), (4352, "share one kernel"),
                                          (4160, "whole image"), (320, "pos_embed")])  # fmt: skip
def test_patch_params_known_wrong_numbers(run_check, wrong, words):
    r = run_check("09.q_patch_params", wrong)
    assert r.mistake == "09.q_patch_params/known_wrong_number" and words in r.messages[0]


def test_baselines_question(run_check):
    assert run_check("09.q_baselines", "c").passed
    for letter in "abd":
        r = run_check("09.q_baselines", letter)
        assert r.mistake == "09.q_baselines/wrong_choice", letter
        assert "small CNN: its convolutions" not in r.messages[0]
