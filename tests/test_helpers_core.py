"""Device choice, seeding and the plotting helpers."""

import matplotlib
import numpy as np
import pytest
import torch

matplotlib.use("Agg")

from helpers import get_device, plotting, seed_everything  # noqa: E402
from helpers.device import accelerator, environment_report  # noqa: E402


def test_the_series_runs_on_the_cpu_unless_told_and_reports_the_gpu(monkeypatch):
    monkeypatch.delenv("ATTN2VIT_DEVICE", raising=False)
    assert get_device() == torch.device("cpu")  # tiny models: faster there (device.py)
    monkeypatch.setenv("ATTN2VIT_DEVICE", "meta")
    assert get_device() == torch.device("meta")
    expected = (
        "cuda"
        if torch.cuda.is_available()
        else ("mps" if torch.backends.mps.is_available() else "none")
    )
    gpu = accelerator()
    assert (gpu.type if gpu is not None else "none") == expected
    assert environment_report()["gpu"] == expected


def test_seed_everything_is_reproducible_and_turns_tf32_off():
    a = torch.randn(3, generator=seed_everything(5))
    b = torch.randn(3, generator=seed_everything(5))
    assert torch.equal(a, b)
    assert torch.get_float32_matmul_precision() == "highest"
    assert torch.backends.cuda.matmul.allow_tf32 is False


@pytest.mark.parametrize(
    "convert", [lambda t: t, lambda t: t.numpy(), lambda t: t.requires_grad_()]
)
def test_heatmap_accepts_tensors_and_arrays(convert):
    w = torch.softmax(torch.randn(4, 5), -1)
    fig = plotting.attention_heatmap(convert(w.clone()), list("abcd"), list("vwxyz"))
    assert isinstance(fig, matplotlib.figure.Figure)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == list("abcd")
    assert np.allclose(ax.images[0].get_array(), w.numpy())


def test_grid_layers_by_heads_shares_one_colorbar():
    maps = [torch.softmax(torch.randn(3, 6, 6), -1) for _ in range(2)]  # 2 layers x 3 heads
    fig = plotting.attention_grid(maps)
    assert sum(1 for ax in fig.axes if ax.images) == 2 * 3
    assert len(fig.axes) == 2 * 3 + 1  # and one shared colorbar
    with pytest.raises(ValueError):
        plotting.attention_grid(torch.zeros(5))


def test_curves_matrix_and_image_grid_return_figures():
    assert isinstance(
        plotting.curves({"a": [3, 2, 1], "b": ([1, 2], [1, 4])}), matplotlib.figure.Figure
    )
    assert isinstance(plotting.matrix(torch.randn(5, 7)), matplotlib.figure.Figure)
    assert isinstance(
        plotting.image_grid(torch.rand(5, 1, 8, 8), titles=list("abcde")), matplotlib.figure.Figure
    )


def test_seed_everything_runs_torch_on_one_thread_unless_asked(monkeypatch):
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        monkeypatch.delenv("ATTN2VIT_THREADS", raising=False)
        seed_everything(0)
        assert torch.get_num_threads() == 1
        monkeypatch.setenv("ATTN2VIT_THREADS", "2")
        seed_everything(0)
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
