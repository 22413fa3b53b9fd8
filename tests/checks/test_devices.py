"""One verdict on every device, shown without a GPU: fakegpu (helpers/checks/run/fake_gpu.py).

fakegpu stands in for the GPU that CI does not have. It is faithful where the first GPU run
(shared/gpu/measured, an H200) was measured: with fakegpu added to e79a8d0 and nothing fixed,
check() failed the same five exercises at the same cases with the same message
("an output tensor is on another device than the inputs"), and every other one passed.
"""

from __future__ import annotations

import ast

import pytest
import torch
from torch import nn

from helpers.checks import check
from helpers.checks.run import fake_gpu
from tests.checks.mutation import _sites, _strip_annotations, build, mutant_source, reference_source
from tests.checks.mutation_probes import SOURCES

pytestmark = pytest.mark.skipif(not fake_gpu.available(), reason="this torch has no Python backend")


@pytest.fixture(scope="module")
def gpu():
    return fake_gpu.fakegpu()


def test_fakegpu_refuses_what_a_gpu_refuses(gpu):
    x = torch.arange(6.0).reshape(2, 3).to(gpu)
    assert x.device.type == "fakegpu" and x.is_floating_point()
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        x + torch.ones(3)  # a CPU tensor made without device=
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        x.masked_fill(torch.ones(2, 3, dtype=torch.bool).tril(), 0.0)
    with pytest.raises(TypeError, match="device type tensor to numpy"):
        x.numpy()


def test_fakegpu_allows_what_a_gpu_allows(gpu):
    x = torch.arange(6.0).reshape(2, 3).to(gpu)
    assert (x * torch.tensor(2.0)).device == gpu  # a 0-dim CPU tensor is a scalar
    assert x[torch.tensor([1, 0])].device == gpu  # CPU indices
    made = [
        torch.zeros(2, 3, device=x.device),
        torch.ones_like(x),
        x.new_full((2, 3), 1.0),
        torch.tensor([[1.0, 2.0, 3.0]], device=gpu),
        torch.arange(3, device=gpu),
        torch.full((2, 3), float("-inf"), device=gpu),
    ]
    assert all(t.device == gpu for t in made)
    y = torch.empty(2, 3, device=gpu)
    y.copy_(torch.ones(2, 3))  # a copy between devices
    y.add_(x)  # in place: the same tensor
    assert torch.equal(y.cpu(), torch.arange(6.0).reshape(2, 3) + 1)
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and x[1, 2].item() == 5.0


def test_an_out_kernel_resizes_a_fakegpu_tensor(gpu):
    """torch.arange(n, device=...) fills an empty tensor of its device (an out= kernel): the
    wrapper's shape follows (torch.outer(arange, w), as LLaMA's RoPE writes it, once failed)."""
    positions = torch.arange(5, device=gpu)
    assert positions.shape == (5,) and positions.tolist() == [0, 1, 2, 3, 4]
    assert torch.outer(positions, torch.ones(3, device=gpu)).shape == (5, 3)


def test_modules_move_their_parameters_and_buffers_not_plain_attributes(gpu):
    class Table(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(3, 3)
            self.register_buffer("pe", torch.ones(3))
            self.plain = torch.ones(3)  # a plain attribute: .to() leaves it where it is

    m = Table().to(gpu)
    assert m.linear.weight.device == gpu and m.pe.device == gpu and m.plain.device.type == "cpu"
    assert isinstance(m.linear.weight, nn.Parameter)
    x = torch.randn(4, 3).to(gpu)
    assert (m.linear(x) + m.pe).device == gpu
    with pytest.raises(RuntimeError, match="same device"):
        m.linear(x) + m.plain
    out = m.linear(x).sum()
    out.backward()
    assert m.linear.weight.grad is not None and m.linear.weight.grad.device == gpu


def test_values_are_the_cpu_values(gpu):
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 5, 4, generator=g) for _ in range(3))
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    got = torch.nn.functional.scaled_dot_product_attention(
        q.to(gpu), k.to(gpu), v.to(gpu), is_causal=True
    )
    # the same numbers up to rounding (sdpa may pick another of its CPU kernels, as a GPU would)
    assert got.device == gpu and torch.allclose(got.cpu(), ref, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("exercise", list(SOURCES))
def test_every_reference_passes_on_fakegpu(exercise):
    source, namespace = reference_source(exercise)
    exec(source, namespace)
    result = check(exercise, namespace[SOURCES[exercise][2]], device="fakegpu", quiet=True)
    assert result.passed, result.messages


def _device_dropped(exercise: str):
    """Each mutant of the reference with one ``device=`` keyword dropped."""
    source, namespace = reference_source(exercise)
    tree = _strip_annotations(ast.parse(source))
    for desc, mutate in _sites(tree):
        if desc.endswith("keyword device= dropped"):
            yield desc, build(mutant_source(tree, mutate), namespace, SOURCES[exercise][2], desc)


#: the codes of a device slip: an output off the inputs' device, a device= argument ignored, state
#: made on the default device (the "meta" relation of properties.py, which needs no fakegpu)
DEVICE_CODES = ("off_device", "ignores_device", "state_on_default_device")
DROPPED = [(ex, desc, obj) for ex in SOURCES for desc, obj in _device_dropped(ex)]


def _passes_device(exercise: str) -> bool:
    """Whether the reference calls something with a ``device=`` keyword."""
    tree = ast.parse(reference_source(exercise)[0])
    calls = (n for n in ast.walk(tree) if isinstance(n, ast.Call))
    return any(k.arg == "device" for c in calls for k in c.keywords)


def test_the_references_make_tensors_on_a_device():
    """Every reference that passes ``device=`` gets its mutants without it (the others use the
    inputs' own operations, a *_like or arithmetic on x, which follow the device); the masks
    among them, at least."""
    found = {ex for ex, _, _ in DROPPED}
    assert found == {ex for ex in SOURCES if _passes_device(ex)}
    assert {"02.causal_mask", "08.sliding_window_mask"} <= found


@pytest.mark.parametrize("exercise, desc, candidate", DROPPED, ids=[d[1] for d in DROPPED])
@pytest.mark.parametrize("device", ["cpu", "fakegpu"])
def test_a_tensor_made_without_device_is_named(exercise, desc, candidate, device):
    """On the CPU too: the check runs the learner's code on fakegpu there (one verdict)."""
    result = check(exercise, candidate, device=device, quiet=True)
    assert not result.passed
    assert result.mistake.partition("/")[2] in DEVICE_CODES, result.messages
    assert "device" in result.messages[0]


def test_a_mistake_is_named_before_a_device_slip():
    """A softmax that forgets to subtract the max and makes its zeros on the CPU: the learner
    is told about the overflow (what the CPU run shows), not about the device first."""

    def softmax(x, dim=-1):
        e = x.exp() + torch.zeros(x.shape)
        return e / e.sum(dim, keepdim=True)

    result = check("01.softmax", softmax, quiet=True)
    assert not result.passed and "off_device" not in result.mistake, result.messages


def test_the_same_verdict_and_message_on_the_cpu_and_on_fakegpu():
    """check() on a CPU-only machine runs the learner's code on fakegpu: the two agree."""

    def scaled(q, k, v, mask=None):
        scores = q @ k.transpose(-2, -1) / k.shape[-1] ** 0.5
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        w = scores.softmax(-1) * torch.ones(scores.shape[-1])  # a CPU tensor: fails on a GPU
        return w @ v, w

    on_cpu = check("02.scaled_dot_product_attention", scaled, device="cpu", quiet=True)
    on_gpu = check("02.scaled_dot_product_attention", scaled, device="fakegpu", quiet=True)
    assert not on_cpu.passed and on_cpu.messages == on_gpu.messages
    assert on_cpu.mistake.partition("/")[2] in DEVICE_CODES


def test_a_result_on_device_meta_is_a_failed_check_not_a_crash():
    result = check("00.relu", lambda x: torch.zeros_like(x, device="meta"), quiet=True)
    assert not result.passed and result.status == "failed", result.messages


def test_a_function_with_no_tensor_input_builds_on_the_cpu(gpu):
    def table(max_len, d_model):
        from helpers.blocks.positional import sinusoidal_positional_encoding

        return sinusoidal_positional_encoding(max_len, d_model).to(gpu)

    result = check("04.sinusoidal_positional_encoding", table, quiet=True)
    assert result.mistake.endswith("/off_device") and "on the CPU" in result.messages[0]
