"""check(): never raises for a learner's mistake, reports clearly, registry metadata."""

import math

import pytest
import torch

from helpers import check, checks
from helpers.checks import EXERCISES, CheckResult
from helpers.checks.framework import Unsupported, plain
from helpers.checks.run.forbid import builtins_off


def test_registry_metadata():
    assert "01.softmax" in EXERCISES
    for ex_id, ex in EXERCISES.items():
        assert ex.id == ex_id and ex.notebook == ex_id.split(".")[0]
        assert ex.title and ex.points > 0


def test_verdict_first_line_and_result(capsys):
    r = check("00.relu", lambda x: torch.where(x > 0, x, torch.zeros_like(x)))
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("✅ 00.relu: ")
    assert isinstance(r, CheckResult) and r.passed and r.points == r.max_points == 1.0
    assert isinstance(r.messages, list)


def test_unknown_id_lists_known_ids(capsys):
    r = check("99.nothing", lambda x: x)
    out = capsys.readouterr().out
    assert out.startswith("❌ 99.nothing: unknown exercise id '99.nothing'. Known ids: ")
    assert "01.softmax" in out and not r.passed and r.status == "error"


def test_exception_reports_type_message_and_learner_line():
    def relu(x):
        y = x + 1
        return y.no_such_method()  # the learner's line

    r = check("00.relu", relu, quiet=True)
    assert r.status == "error" and not r.passed
    msg = r.messages[0]
    assert "AttributeError" in msg and "no_such_method" in msg
    assert "in relu, line" in msg and "return y.no_such_method()" in msg


def test_not_implemented_reads_not_implemented_yet():
    def relu(x):
        raise NotImplementedError("00.relu: fill in this TODO")

    r = check("00.relu", relu, quiet=True)
    assert r.status == "missing" and r.messages[0].startswith("not implemented yet")


def test_an_op_a_device_lacks_is_not_told_to_fill_in_the_todo():
    """torch raises NotImplementedError for an operation a backend lacks (the checks' stand-in
    GPU too): that is shown as raised, never as a TODO left to fill in (attack round 4)."""

    def relu(x):
        raise NotImplementedError("Could not run 'aten::foo' with arguments from 'fakegpu'")

    r = check("00.relu", relu, quiet=True)
    assert r.status == "error" and not r.passed
    assert "aten::foo" in r.messages[0] and "fill in the TODO" not in r.messages[0]


@pytest.mark.parametrize(
    "candidate, words",
    [
        (lambda x: x.tolist(), "should be a torch.Tensor, got list"),
        (lambda x: None, "did you forget `return`"),
        (lambda x: (x, x), "a tuple of 2: return only the tensor"),
        (
            lambda x: x.clamp_min(0).double() if x.dtype == torch.float32 else x,
            "has dtype torch.float64",
        ),
        (lambda x: x.clamp_min(0)[None], "has shape (1, 4), expected (4,)"),
        (
            lambda x: torch.full_like(x, math.nan),
            "contains NaN where the expected values are finite",
        ),
    ],
)
def test_wrong_types_shapes_dtypes_nan(candidate, words):
    r = check("00.relu", candidate, quiet=True)
    assert not r.passed and r.status == "failed"
    assert words in r.messages[0], r.messages


def test_tuple_of_wrong_length_and_nan():
    r = check("01.dot_product_attention", lambda x: (x, x, x), quiet=True)
    assert "should return a tuple (z, weights), got a tuple of 3" in r.messages[0]

    def nan_attention(x):
        w = torch.full(x.shape[:-1] + x.shape[-2:-1], math.nan, dtype=x.dtype)
        return w @ x, w

    r = check("01.dot_product_attention", nan_attention, quiet=True)
    assert "weights contain NaN" in r.messages[0]


def test_builtins_are_restored_after_a_check():
    original_fn, original_method = torch.softmax, torch.Tensor.softmax
    check("01.softmax", lambda x, dim=-1: torch.softmax(x, dim), quiet=True)
    assert torch.softmax is original_fn and torch.Tensor.softmax is original_method
    assert "softmax" not in vars(torch.Tensor)  # the inherited method is not shadowed
    assert torch.softmax(torch.zeros(2), 0).sum() == 1


def test_builtins_restored_even_when_the_block_raises():
    with pytest.raises(KeyError):
        with builtins_off(("torch.nn.functional.relu",)):
            raise KeyError
    assert torch.nn.functional.relu(torch.tensor([-1.0])).item() == 0.0


def test_seed_gives_other_cases_and_same_verdict():
    good = lambda x: torch.where(x > 0, x, torch.zeros_like(x))  # noqa: E731
    assert check("00.relu", good, seed=7, quiet=True).passed


def test_plain_turns_objects_into_unsupported():
    class Liar:
        def __eq__(self, other):
            return True

    class Sub(torch.Tensor):
        pass

    assert isinstance(plain(Liar()), Unsupported)
    assert isinstance(plain(torch.zeros(2).as_subclass(Sub)), Unsupported)
    assert plain((1, [2.0, None], {"a": "b"})) == (1, [2.0, None], {"a": "b"})
    r = check("00.relu", lambda x: Liar(), quiet=True)
    assert "should be a torch.Tensor, got" in r.messages[0] and "Liar" in r.messages[0]


def test_check_never_raises_on_a_keyboard_free_base_exception():
    def relu(x):
        raise SystemExit(3)

    with pytest.raises(SystemExit):  # not a learner's Exception: interrupting must still work
        check("00.relu", relu, quiet=True)


def test_mistake_code_from_a_named_variant():
    """expect_close takes (variant, message) and (variant, message, slug); evaluate turns the
    slug into CheckResult.mistake = "<id>/<slug>", and leaves it empty for unnamed mistakes."""
    from helpers.checks import evaluate
    from helpers.checks.framework import Exercise, Fail, Probe, expect_close
    from helpers.checks.run.runner import Outcome

    ref = torch.tensor([1.0, 2.0])
    mistakes = [(ref * 3, "tripled"), (lambda: ref * 2, "doubled", "doubled")]
    with pytest.raises(Fail) as info:
        expect_close(ref * 2, ref, mistakes=mistakes)
    assert str(info.value) == "doubled" and info.value.code == "doubled"
    with pytest.raises(Fail) as info:
        expect_close(ref * 3, ref, mistakes=mistakes)
    assert str(info.value) == "tripled" and info.value.code is None
    assert Fail("plain").code is None

    class Doubling(Exercise):  # no id: stays out of the registry
        def judge(self, probe, out):
            expect_close(out, ref, mistakes=mistakes)

    ex = Doubling()
    ex.id = "xx.doubling"
    probe = Probe("one case")
    named = evaluate(ex, [(probe, Outcome(value=ref * 2))])
    assert not named.passed and named.mistake == "xx.doubling/doubled"
    unnamed = evaluate(ex, [(probe, Outcome(value=ref * 3))])
    assert not unnamed.passed and unnamed.mistake == ""
    assert evaluate(ex, [(probe, Outcome(value=ref.clone()))]).mistake == ""


# --------------------------------------------------------------------------- shared probe pieces


def test_meta_device_case_names_an_ignored_device():
    """DeviceProbeMixin adds a device='meta' case: a CPU-only machine sees an ignored device."""
    from helpers.checks import EXERCISES

    probes = list(EXERCISES["02.causal_mask"].probes(torch.Generator().manual_seed(0)))
    assert probes[-1].runner == "device_meta"
    ignored = check(
        "02.causal_mask", lambda T, device=None: torch.ones(T, T).tril().bool(), quiet=True
    )
    assert ignored.mistake == "02.causal_mask/ignores_device"
    assert "device" in ignored.messages[0]
    honoured = lambda T, device=None: torch.ones(T, T, device=device).tril().bool()  # noqa: E731
    assert check("02.causal_mask", honoured, quiet=True).passed


def test_lazy_layers_are_named_not_a_crash():
    class FeedForward(torch.nn.Module):
        def __init__(self, d_model, d_ff, dropout=0.0, activation="relu"):
            super().__init__()
            self.linear1, self.linear2 = torch.nn.LazyLinear(d_ff), torch.nn.LazyLinear(d_model)

        def forward(self, x):
            return self.linear2(torch.relu(self.linear1(x)))

    r = check("05.FeedForward", FeedForward, quiet=True)
    assert r.mistake == "05.FeedForward/lazy_layers" and r.status == "failed"
    assert "size the layers at construction" in r.messages[0]


def test_an_input_changed_in_place_is_named_and_the_probe_kept():
    def relu(x):
        x[x < 0] = 0
        return x

    r = check("00.relu", relu, quiet=True)
    assert r.mistake == "00.relu/changes_input" and "in place" in r.messages[0]


def test_an_input_changed_in_place_is_named_on_a_probe_with_relations_too():
    """The kernel's outcome says it by name (Outcome.input_changed): a "props" probe's call
    once handed the judge a marker dict in place of its output ("got dict")."""

    def layer_norm_backward(x, weight, grad_y, eps=1e-5):
        x.sub_(x.mean(-1, keepdim=True))  # in place: the caller's x is centred too
        std = torch.sqrt((x**2).mean(-1, keepdim=True) + eps)
        x_hat, g = x / std, grad_y * weight
        grad_x = (g - g.mean(-1, keepdim=True) - x_hat * (g * x_hat).mean(-1, keepdim=True)) / std
        rows = (-1, x.shape[-1])
        return grad_x, (grad_y * x_hat).reshape(rows).sum(0), grad_y.reshape(rows).sum(0)

    r = check("05.layer_norm_backward", layer_norm_backward, quiet=True)
    assert r.mistake == "05.layer_norm_backward/changes_input", r.messages


def test_fixed_dropout_is_the_same_on_both_sides_and_restored():
    import torch.nn.functional as F

    from helpers.checks.run.modules import dropout_fixed, dropout_keep, fixed_dropout

    keep = dropout_keep(24, 0.5, seed=3)
    assert torch.equal(keep, dropout_keep(24, 0.5, seed=3)) and 0 < keep.sum() < 24
    x = torch.randn(2, 3, 4)
    with dropout_fixed(3) as calls:
        a = torch.nn.Dropout(0.5).train()(x)
        b = F.dropout(x.view(6, 4), 0.5, training=True)  # another layout, the same mask
        c = F.dropout(x, 0.5, training=False)
    assert torch.equal(a, fixed_dropout(x, 0.5, 3)) and torch.equal(b.view(2, 3, 4), a)
    assert c is x and calls == [24, 24]
    assert F.dropout is not None and "fixed" not in F.dropout.__qualname__
    assert not torch.equal(torch.nn.Dropout(0.5).train()(torch.ones(1000)), torch.ones(1000))


def test_every_probe_names_a_runner_of_the_kernel_side():
    """The runner of every probe of every exercise, inline and for the grader, is in the
    kernel's table (a probe naming another fails in the kernel, not here)."""
    from helpers.checks.run.runner import RUNNERS

    gen = torch.Generator().manual_seed(0)
    named = {
        p.runner.partition(":")[0]
        for ex in EXERCISES.values()
        for p in [*checks.probes(ex, gen), *ex.grading_probes(gen)]
    }
    assert named <= set(RUNNERS), named - set(RUNNERS)
    assert set(RUNNERS) - named == set(), "a runner no exercise uses"


def _sdpa_by_aten_math(q, k, v, mask=None):
    additive = None
    if mask is not None:
        additive = torch.zeros(mask.shape, dtype=q.dtype, device=q.device)
        additive = additive.masked_fill(~mask, float("-inf"))
    return torch.ops.aten._scaled_dot_product_attention_math(q, k, v, additive)


class _LayerNormByAten(torch.nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(d_model))
        self.bias = torch.nn.Parameter(torch.zeros(d_model))
        self.eps = eps

    def forward(self, x):
        w, b = self.weight.to(x.dtype), self.bias.to(x.dtype)
        return torch.ops.aten.native_layer_norm(x, (x.shape[-1],), w, b, self.eps)[0]


_group_norm = torch.nn.functional.group_norm  # captured before the check switches names off


class _LayerNormByGroupNorm(_LayerNormByAten):
    def forward(self, x):
        flat = _group_norm(x.reshape(-1, 1, x.shape[-1]), 1, eps=self.eps)
        return flat.reshape(x.shape) * self.weight + self.bias


@pytest.mark.parametrize(
    "exercise, candidate, kernel",
    [
        ("01.softmax", lambda x, dim=-1: torch.ops.aten._softmax(x, dim, False), "_softmax"),
        ("05.LayerNorm", _LayerNormByAten, "native_layer_norm"),
        ("05.LayerNorm", _LayerNormByGroupNorm, "native_group_norm"),
    ]
    + (
        # the math path's softmax is _safe_softmax since torch 2.5 (before, a plain _softmax)
        [("02.scaled_dot_product_attention", _sdpa_by_aten_math, "_safe_softmax")]
        if hasattr(torch.ops.aten, "_safe_softmax")
        else []
    ),
)
def test_builtin_kernels_are_off_however_they_are_reached(exercise, candidate, kernel):
    """Found by an outside attacker: torch.ops.aten and another built-in on the same kernel
    passed a from-scratch exercise; the dispatcher refuses the kernel whatever the route."""
    result = check(exercise, candidate)
    assert not result.passed
    assert result.mistake == f"{exercise}/forbidden_builtin"
    assert kernel in " ".join(result.messages)
