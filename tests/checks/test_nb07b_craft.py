"""Checks of notebook 07b's training craft: gradient clipping and a checkpoint's round trip (the
solution passes, a correct alternate passes, each slip a learner makes is named), and the two
conceptual questions."""

import math

import pytest
import torch

from helpers.checks import EXERCISES
from helpers.data import course_text

from .conftest import stub

# --------------------------------------------------------------------------- gradient clipping


def clip_grad_norm(parameters, max_norm):
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((g * g).sum() for g in grads))
    if total > max_norm:
        for g in grads:
            g.mul_(max_norm / (total + 1e-6))
    return total


def clip_torch_style(parameters, max_norm):  # per-parameter norms, then their norm; a factor <= 1
    params = [p for p in parameters if p.grad is not None]
    norms = torch.stack([torch.linalg.vector_norm(p.grad) for p in params])
    total = torch.linalg.vector_norm(norms)
    coef = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    for p in params:
        p.grad = p.grad * coef  # replaced, not scaled in place: the optimizer reads it the same
    return total


def clip_local_name(parameters, max_norm):
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((g * g).sum() for g in grads))
    if total > max_norm:
        for g in grads:
            g = g * (max_norm / (total + 1e-6))  # a new tensor; p.grad unchanged
    return total


def clip_none_crash(parameters, max_norm):
    parameters = list(parameters)
    total = torch.sqrt(sum((p.grad**2).sum() for p in parameters))
    if total > max_norm:
        for p in parameters:
            p.grad.mul_(max_norm / (total + 1e-6))
    return total


def clip_two_passes(parameters, max_norm):  # reads a generator twice
    total = torch.sqrt(sum((p.grad**2).sum() for p in parameters if p.grad is not None))
    if total > max_norm:
        for p in parameters:
            if p.grad is not None:
                p.grad.mul_(max_norm / (total + 1e-6))
    return total


def clip_item(parameters, max_norm):
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((g * g).sum() for g in grads))
    if total > max_norm:
        for g in grads:
            g.mul_(max_norm / (total + 1e-6))
    return total.item()


def clip_the_weights(parameters, max_norm):
    params = [p for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((p.grad**2).sum() for p in params))
    if total > max_norm:
        with torch.no_grad():
            for p in params:
                p.mul_(max_norm / (total + 1e-6))
    return total


def clip_fills_none(parameters, max_norm):
    params = list(parameters)
    for p in params:
        if p.grad is None:
            p.grad = torch.zeros_like(p)
    total = torch.sqrt(sum((p.grad**2).sum() for p in params))
    if total > max_norm:
        for p in params:
            p.grad.mul_(max_norm / (total + 1e-6))
    return total


def clip_norm_of_means(parameters, max_norm):  # each gradient's mean square: no global norm
    grads = [p.grad for p in parameters if p.grad is not None]
    total = torch.sqrt(sum((g * g).mean() for g in grads))
    if total > max_norm:
        for g in grads:
            g.mul_(max_norm / (total + 1e-6))
    return total


def test_clip_a_wrong_norm_is_not_told_a_constant_factor(run_check):
    """One number is some factor times any other: the value is said, no factor claimed."""
    r = run_check("07b.clip_grad_norm", clip_norm_of_means)
    text = r.messages[0]
    assert not r.passed and r.mistake != "07b.clip_grad_norm/constant_factor", text
    assert "constant factor" not in text and "the returned norm does not match" in text, text


def test_clip_max_norm_1_says_both_flipped_factors(run_check):
    from helpers.checks import EXERCISES
    from helpers.checks.run.calling import Probe

    ex = EXERCISES["07b.clip_grad_norm"]
    g = torch.tensor([3.0, 4.0])
    probe = Probe("one gradient of norm 5, max_norm = 1", args=([torch.zeros(2)], [g], 1.0))
    out = {"params": [torch.zeros(2)], "grads": [g * 5.0], "value": torch.tensor(5.0)}
    with pytest.raises(Exception) as info:
        ex.judge(probe, out)
    assert info.value.code == "scaled_by_total", str(info.value)


def clip_builtin(parameters, max_norm):
    return torch.nn.utils.clip_grad_norm_(parameters, max_norm)


def test_clip_solution_passes(run_check):
    for candidate in (clip_grad_norm, clip_torch_style):
        r = run_check("07b.clip_grad_norm", candidate)
        assert r.passed and r.points == r.max_points, r.messages


def test_clip_stub(run_check):
    r = run_check("07b.clip_grad_norm", stub)
    assert r.status == "missing"


@pytest.mark.parametrize(
    "candidate, code",
    [
        (clip_local_name, "not_written_back"),
        (clip_none_crash, "none_grad"),
        (clip_two_passes, "generator_consumed"),
        (clip_item, "not_a_tensor"),
        (clip_the_weights, "scaled_parameters"),
        (clip_fills_none, "none_filled"),
        (clip_builtin, "forbidden_builtin"),
    ],
)
def test_clip_mistakes(run_check, candidate, code):
    r = run_check("07b.clip_grad_norm", candidate)
    assert not r.passed
    assert r.mistake == f"07b.clip_grad_norm/{code}", r.messages


# --------------------------------------------------------------------------- checkpoints


def save_checkpoint(path, model, optimizer, step):
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}
    torch.save(state, path)


def load_checkpoint(path, model, optimizer):
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return state["step"]


def save_with_open_file(path, model, optimizer, step):  # a file object, keys in another order
    with open(path, "wb") as f:
        torch.save({"step": step, "optimizer": optimizer.state_dict(),
                    "model": model.state_dict()}, f)  # fmt: skip


def load_map_location(path, model, optimizer):
    state = torch.load(path, map_location="cpu")  # weights_only is the default
    optimizer.load_state_dict(state["optimizer"])  # the order does not matter
    model.load_state_dict(state["model"])
    return int(state["step"])


def save_no_optimizer(path, model, optimizer, step):
    torch.save({"model": model.state_dict(), "step": step}, path)


def save_objects(path, model, optimizer, step):
    torch.save({"model": model, "optimizer": optimizer, "step": step}, path)


def save_no_step(path, model, optimizer, step):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, path)


def save_next_step(path, model, optimizer, step):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "step": step + 1}, path)  # fmt: skip


def save_elsewhere(path, model, optimizer, step):
    import os
    import tempfile

    other = os.path.join(tempfile.mkdtemp(), "checkpoint.pt")
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step},
               other)  # fmt: skip


def save_other_keys(path, model, optimizer, step):
    torch.save({"model_state_dict": model.state_dict(),
                "optimizer_state_dict": optimizer.state_dict(), "epoch": step}, path)  # fmt: skip


def save_fresh_optimizer(path, model, optimizer, step):  # a new AdamW's state: none of the run's
    fresh = torch.optim.AdamW(model.parameters(), lr=optimizer.param_groups[0]["lr"],
                              weight_decay=optimizer.param_groups[0]["weight_decay"])  # fmt: skip
    torch.save({"model": model.state_dict(), "optimizer": fresh.state_dict(), "step": step}, path)


def save_float32(path, model, optimizer, step):
    weights = {k: v.float() for k, v in model.state_dict().items()}
    torch.save({"model": weights, "optimizer": optimizer.state_dict(), "step": step}, path)


def save_half(path, model, optimizer, step):  # float16 to halve the file: the weights rounded
    weights = {k: v.half() if v.is_floating_point() else v for k, v in model.state_dict().items()}
    torch.save({"model": weights, "optimizer": optimizer.state_dict(), "step": step}, path)


def save_parameters_list(path, model, optimizer, step):
    torch.save({"model": list(model.parameters()), "optimizer": optimizer.state_dict(),
                "step": step}, path)  # fmt: skip


def save_named_parameters(path, model, optimizer, step):  # no buffers (the batch norm's)
    weights = {name: p.detach() for name, p in model.named_parameters()}
    torch.save({"model": weights, "optimizer": optimizer.state_dict(), "step": step}, path)


def load_keys_swapped(path, model, optimizer):
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["optimizer"])
    optimizer.load_state_dict(state["model"])
    return state["step"]


def load_whole_checkpoint(path, model, optimizer):
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state, strict=False)  # loads nothing
    optimizer.load_state_dict(state)
    return state["step"]


def load_next_step(path, model, optimizer):
    return load_checkpoint(path, model, optimizer) + 1


def load_no_optimizer(path, model, optimizer):
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    return state["step"]


def load_no_model(path, model, optimizer):
    state = torch.load(path, weights_only=True)
    optimizer.load_state_dict(state["optimizer"])
    return state["step"]


def load_no_return(path, model, optimizer):
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])


def load_own_optimizer(path, model, optimizer):  # a new AdamW, not the caller's
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer = torch.optim.AdamW(model.parameters())
    optimizer.load_state_dict(state["optimizer"])
    return state["step"]


def load_own_model(path, model, optimizer):  # a copy of the model, not the caller's
    import copy

    state = torch.load(path, weights_only=True)
    model = copy.deepcopy(model)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return state["step"]


def load_returns_state(path, model, optimizer):
    state = torch.load(path, weights_only=True)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return state


@pytest.mark.parametrize(
    "exercise, candidates",
    [
        ("07b.save_checkpoint", (save_checkpoint, save_with_open_file)),
        ("07b.load_checkpoint", (load_checkpoint, load_map_location)),
    ],
)
def test_checkpoint_solutions_pass(run_check, exercise, candidates):
    for candidate in candidates:
        r = run_check(exercise, candidate)
        assert r.passed and r.points == r.max_points, r.messages


@pytest.mark.parametrize("exercise", ["07b.save_checkpoint", "07b.load_checkpoint"])
def test_checkpoint_stubs(run_check, exercise):
    assert run_check(exercise, stub).status == "missing"


@pytest.mark.parametrize(
    "candidate, code",
    [
        (save_no_optimizer, "no_optimizer"),
        (save_objects, "pickled_objects"),
        (save_no_step, "step_lost"),
        (save_next_step, "step_lost"),
        (save_elsewhere, "no_file"),
        (save_other_keys, "wrong_keys"),
        (save_fresh_optimizer, "optimizer_state_lost"),
        (save_float32, "not_bitwise"),
        (save_half, "model_rounded"),
        (save_parameters_list, "model_not_a_state_dict"),
        (save_named_parameters, "model_not_a_state_dict"),
    ],
)
def test_save_checkpoint_mistakes(run_check, candidate, code):
    r = run_check("07b.save_checkpoint", candidate)
    assert not r.passed
    assert r.mistake == f"07b.save_checkpoint/{code}", r.messages


@pytest.mark.parametrize(
    "candidate, code",
    [
        (load_no_optimizer, "optimizer_not_loaded"),
        (load_no_model, "model_not_loaded"),
        (load_no_return, "step_lost"),
        (load_own_optimizer, "optimizer_not_loaded"),
        (load_own_model, "model_not_loaded"),
        (load_returns_state, "step_lost"),
        (load_keys_swapped, "wrong_state"),
        (load_whole_checkpoint, "whole_checkpoint"),
        (load_next_step, "step_lost"),
    ],
)
def test_load_checkpoint_mistakes(run_check, candidate, code):
    r = run_check("07b.load_checkpoint", candidate)
    assert not r.passed
    assert r.mistake == f"07b.load_checkpoint/{code}", r.messages


# --------------------------------------------------------------------------- questions


def test_the_uniform_perplexity_is_the_vocabulary_size():
    assert EXERCISES["07b.q_uniform_perplexity"].answer == len(set(course_text()))


@pytest.mark.parametrize(
    "answer, code",
    [(108, None), (108.0, None), (math.log(108), "known_wrong_number"),
     (1 / 108, "known_wrong_number"), (math.log2(108), "known_wrong_number"),
     (50, "wrong_number"), ("108", "not_a_number")],
)  # fmt: skip
def test_uniform_perplexity_question(run_check, answer, code):
    r = run_check("07b.q_uniform_perplexity", answer)
    assert r.passed == (code is None)
    assert r.mistake == ("" if code is None else f"07b.q_uniform_perplexity/{code}"), r.messages


@pytest.mark.parametrize("answer", ["a", "b", "c", "d"])
def test_resume_without_optimizer_question(run_check, answer):
    r = run_check("07b.q_resume_without_optimizer", answer)
    assert r.passed == (answer == "b")
    if answer != "b":
        assert r.mistake == "07b.q_resume_without_optimizer/wrong_choice"
        assert "the first only" not in r.messages[0]


def test_a_step_off_by_one_is_told_so(run_check):
    r = run_check("07b.load_checkpoint", load_next_step)
    assert "one step ahead" in r.messages[0] and "before step 3" in r.messages[0], r.messages
    r = run_check("07b.save_checkpoint", save_next_step)
    assert "one step ahead" in r.messages[0], r.messages


def test_a_save_without_the_buffers_is_told_what_is_missing(run_check):
    r = run_check("07b.save_checkpoint", save_named_parameters)
    assert "Missing key(s)" in r.messages[0] and "running_mean" in r.messages[0], r.messages
