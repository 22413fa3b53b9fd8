"""Figures that stand alone: labelled axes, a key where colour means something, legible text.

The rule is ``tests/figure_rules.py`` (its docstring states it; in short: every axes drawn with
its axis lines has an x and a y label, its own or a shared neighbour's; a colour image has a
labelled colour bar or a legend; two labelled series have a legend; text is at least 7 pt;
an axes switched off is exempt only as an image panel with a title or under a suptitle).

Two ways it reaches the figures:

- The solved notebooks' figures are checked where nbval runs them (``make test``, ``make
  test-notebooks``, ``make test-gpu``): conftest.py installs the rule in each notebook's kernel,
  where every figure rendered to a PNG (shown inline, by ``display``, or as a widget's static
  view) is checked first; one that breaks the rule prints why, nbval fails the cell because its
  stdout differs from the stored outputs, and the report has a section "figure" naming what
  is missing. That costs no second run of the notebooks. The last test here runs that path
  end to end on a small notebook, and shows it fails on a figure with no labels.
- The figures the notebooks draw only when a check fails (``check()``'s inline difference,
  ``plotting.show_check_figure``) and every helper of ``helpers.plotting`` are drawn and
  checked here directly.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from helpers import plotting  # noqa: E402
from tests.figure_rules import HEADER, figure_problems  # noqa: E402
from tests.speed import scaled  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _labelled_plot():
    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], label="a")
    ax.plot([3, 2, 1], label="b")
    ax.set(xlabel="step", ylabel="loss")
    ax.legend()
    return fig


def _no_x_label():
    fig, ax = plt.subplots()
    ax.plot([1, 2, 3])
    ax.set_ylabel("loss")
    return fig


def _no_labels_at_all():
    fig, ax = plt.subplots()
    ax.plot([1, 2, 3])
    return fig


def _heatmap_without_key():
    fig, ax = plt.subplots()
    ax.imshow(np.random.default_rng(0).random((4, 4)), cmap="viridis")
    ax.set(xlabel="key", ylabel="query")
    return fig


def _colour_bar_without_label():
    fig, ax = plt.subplots()
    fig.colorbar(ax.imshow(np.eye(3)), ax=ax)
    ax.set(xlabel="key", ylabel="query")
    return fig


def _image_panel_saying_nothing():
    fig, ax = plt.subplots()
    ax.imshow(np.eye(3), cmap="gray")
    ax.axis("off")
    return fig


def _two_series_no_legend():
    fig, ax = plt.subplots()
    ax.plot([1, 2], label="train")
    ax.plot([2, 1], label="test")
    ax.set(xlabel="epoch", ylabel="loss")
    return fig


def _tiny_ticks():
    fig, ax = plt.subplots()
    ax.plot([1, 2])
    ax.set(xlabel="step", ylabel="loss")
    ax.tick_params(labelsize=5)
    return fig


def _mask_without_key():
    fig, ax = plt.subplots()
    ax.imshow(np.tril(np.ones((4, 4), dtype=bool)), cmap="Greens")
    ax.set(xlabel="key", ylabel="query")
    return fig


def _underscore_in_title():
    fig = _labelled_plot()
    fig.axes[0].set_title("PE_p · PE_q")
    return fig


def _unset_option_in_title():
    fig = _labelled_plot()
    fig.axes[0].set_title(f"temperature 0.8, top-k 10, top-p {None}", loc="left")
    return fig


def _underscore_in_suptitle():
    fig = _labelled_plot()
    fig.suptitle("d_model = 64")
    return fig


def test_the_rule_passes_a_figure_that_says_what_it_shows():
    assert figure_problems(_labelled_plot()) == []


@pytest.mark.parametrize(
    "draw, problem",
    [
        (_no_x_label, "no x-axis label"),
        (_no_labels_at_all, "no y-axis label"),
        (_heatmap_without_key, "colours (viridis) without a colour bar or a legend"),
        (_colour_bar_without_label, "a colour bar without a label"),
        (_image_panel_saying_nothing, "an image with its axes off and no title"),
        (_two_series_no_legend, "2 labelled series and no legend"),
        (_tiny_ticks, "text under 7 pt"),
        (_mask_without_key, "colours (Greens) without a colour bar or a legend"),
        (_underscore_in_title, "the title 'PE_p · PE_q' prints a literal underscore"),
        (_unset_option_in_title, "states an option that is not set (None)"),
        (_underscore_in_suptitle, "suptitle: the title 'd_model = 64' prints a literal underscore"),
    ],
)
def test_the_rule_names_what_a_figure_lacks(draw, problem):
    problems = figure_problems(draw())
    assert any(problem in p for p in problems), problems


def test_math_between_dollars_is_rendered_and_passes():
    fig = _labelled_plot()
    fig.axes[0].set_title(r"$PE_p \cdot PE_q$, $d_{model} = 64$")
    fig.suptitle("Nonetheless a title")
    assert figure_problems(fig) == []


def test_a_grid_labels_its_outer_row_and_column_once():
    """Shared axes: one x label on the bottom row and one y label on the left column are
    enough; an unshared panel needs its own."""
    fig, axes = plt.subplots(2, 2, sharex=True, sharey=True)
    for ax in axes.flat:
        ax.plot([1, 2])
    for ax in axes[1]:
        ax.set_xlabel("x")
    for ax in axes[:, 0]:
        ax.set_ylabel("y")
    assert figure_problems(fig) == []
    fig, axes = plt.subplots(1, 2)
    for ax in axes:
        ax.plot([1, 2])
    axes[0].set(xlabel="x", ylabel="y")
    axes[1].set_xlabel("x")
    assert figure_problems(fig) == ["axes 1: no y-axis label"]


def _attention(*shape):
    return torch.softmax(torch.randn(*shape, generator=torch.Generator().manual_seed(0)), -1)


HELPER_FIGURES = {
    "attention_heatmap": lambda: plotting.attention_heatmap(
        _attention(4, 5), list("abcd"), list("vwxyz")
    ),
    "attention_heatmap, no tokens": lambda: plotting.attention_heatmap(_attention(12, 12)),
    "attention_grid, layers x heads": lambda: plotting.attention_grid(
        [_attention(3, 6, 6) for _ in range(2)], tokens=list("abcdef")
    ),
    "attention_grid, one row": lambda: plotting.attention_grid(
        _attention(1, 4, 6, 6), col_titles=list("pqrs"), title="heads"
    ),
    "curves, one series": lambda: plotting.curves({"train": [3, 2, 1]}),
    "curves, several, legend outside": lambda: plotting.curves(
        {"a": [3, 2, 1], "b": ([0, 1, 2], [1, 4, 9])}, legend="outside", logy=True
    ),
    "matrix": lambda: plotting.matrix(torch.randn(5, 7), xlabel="dimension", ylabel="position"),
    "image_grid, titles": lambda: plotting.image_grid(
        torch.rand(5, 1, 8, 8), titles=list("abcde"), cols=3
    ),
    "image_grid, suptitle": lambda: plotting.image_grid(torch.rand(2, 3, 8, 8), title="patches"),
}


@pytest.mark.parametrize("name", list(HELPER_FIGURES))
def test_every_plotting_helper_draws_a_figure_that_stands_alone(name):
    fig = HELPER_FIGURES[name]()
    assert figure_problems(fig) == []


def test_the_attention_overlay_keeps_the_image_visible_and_keyed():
    image = torch.zeros(8, 8)
    image[2:6, 3:5] = 1.0
    fig, axes = plt.subplots(1, 2)
    axes[0].imshow(image.numpy(), cmap="gray")
    axes[0].axis("off")
    shown = plotting.attention_overlay(axes[1], image, torch.rand(2, 2), title="head 0")
    fig.suptitle("digit and CLS weights")
    fig.colorbar(shown, ax=axes, label="CLS weight")
    assert figure_problems(fig) == []
    assert len(axes[1].images) == 1 and axes[1].collections  # weights, and the digit's outline


def _check_result(exercise, expected, got):
    from helpers.checks import EXERCISES, CheckResult

    result = CheckResult(exercise, False, 0.0, 1.0, ["wrong"], "failed")
    result.figure, result.axes = (expected, got), EXERCISES[exercise].axes
    return result


CAUSAL = torch.ones(5, 5, dtype=torch.bool).tril()
BLOCK = torch.randn(2, 6, 16, generator=torch.Generator().manual_seed(1))


@pytest.mark.parametrize(
    "exercise, expected, got",
    [
        ("02.causal_mask", CAUSAL, CAUSAL.T),
        ("02.padding_mask", torch.tensor([[[[1, 1, 1, 0]]]]).bool(), torch.ones(1, 1, 1, 4).bool()),
        ("05.TransformerEncoderBlock", BLOCK, BLOCK + 0.01 * torch.randn(2, 6, 16)),
        ("03.MultiHeadAttention", _attention(4, 4), _attention(4, 4).T),
    ],
)
def test_a_failed_checks_inline_figure_stands_alone(monkeypatch, exercise, expected, got):
    """``check()`` shows expected, yours and their difference: masks in two colours with a
    legend (True = may attend), numbers on a shared colour bar and the difference on a
    diverging one scaled to its largest value, so that a small error still shows where it is."""
    import IPython
    import IPython.display

    shown = []
    shell = SimpleNamespace(events=SimpleNamespace(register=lambda *args: None))  # a notebook's
    monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
    monkeypatch.setattr(IPython.display, "display", shown.append)
    plotting.show_check_figure(_check_result(exercise, expected, got))
    (fig,) = shown
    assert figure_problems(fig) == []
    titles = [ax.get_title() for ax in fig.axes]
    assert (
        titles[:2] == ["expected", "yours"]
        and "difference" in " ".join(titles[2:])
        or any("yours − expected" in t for t in titles)
    )
    if expected.dtype == torch.bool:
        texts = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
        assert "True: may attend" in texts
    else:
        (diff,) = [im for ax in fig.axes for im in ax.images if im.get_cmap().name == "RdBu_r"]
        difference = got - expected
        while difference.ndim > 2:  # the first matrix, as show_check_figure draws
            difference = difference[0]
        largest = float(difference.abs().max())
        assert diff.get_clim() == pytest.approx((-largest, largest), rel=1e-6)
        assert fig.get_size_inches()[0] * fig.dpi <= 1000  # fits a notebook's width


def _notebook(path, source):
    """A notebook of one cell, stored as ``helpers execute`` stores a figure (nbval compares its
    text/plain, which the sanitizer turns into ``<Figure>``)."""
    figure = {
        "data": {"image/png": "", "text/plain": ["<Figure size 640x480 with 1 Axes>"]},
        "metadata": {},
        "output_type": "display_data",
    }
    cell = {"cell_type": "code", "execution_count": 1, "id": "figure", "metadata": {}}
    nb = {
        "cells": [{**cell, "outputs": [figure], "source": source}],
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb))
    return path


def test_nbval_fails_a_notebook_figure_that_does_not_stand_alone(tmp_path):
    """The real path, once for two notebooks: this repository's conftest.py, nbval and a kernel
    each; one cell draws a figure with axis labels (passes), the other the same without them
    (fails, and the report names what is missing)."""
    draw = "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([1, 2, 3])\n"
    labels = 'ax.set_xlabel("step")\nax.set_ylabel("loss")\n'
    bare = _notebook(tmp_path / "bare.ipynb", draw + "plt.show()\n")
    labelled = _notebook(tmp_path / "labelled.ipynb", draw + labels + "plt.show()\n")
    env = {**os.environ, "NOTEBOOK_BUDGET_FACTOR": "0", "TEST_SLOWDOWN": "1"}
    env.pop("PYTEST_XDIST_WORKER", None)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider", "-rA"]
        + ["--rootdir", str(tmp_path), "--nbval", "--nbval-current-env", str(bare), str(labelled)]
        + ["--nbval-sanitize-with", "tests/nbval_sanitize.cfg"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(300),
    )
    out = run.stdout
    assert run.returncode == 1, out[-3000:]
    assert re.search(r"^PASSED \S*/labelled\.ipynb::Cell 0", out, re.M), out[-3000:]
    assert re.search(r"^FAILED \S*/bare\.ipynb::Cell 0", out, re.M), out[-3000:]
    assert HEADER in out and "axes 0: no x-axis label" in out, out[-3000:]
