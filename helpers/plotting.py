"""Figures for the series. Every function takes tensors or arrays and returns the Figure.

Nothing here calls ``plt.show()``; in a notebook the inline backend shows the figure when
the cell ends (end the cell with an assignment such as ``fig = ...`` or with ``plt.show()``).
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

matplotlib.rcParams.update({"figure.dpi": 80, "savefig.dpi": 80, "font.size": 9})


def to_numpy(x) -> np.ndarray:
    """Tensor (any device, with grad) or array-like -> float NumPy array."""
    if hasattr(x, "detach"):
        x = x.detach().to("cpu")
        if x.is_floating_point():
            x = x.double()
        x = x.numpy()
    return np.asarray(x)


def attention_heatmap(
    weights,
    queries: Sequence[str] | None = None,
    keys: Sequence[str] | None = None,
    title: str = "attention weights",
    annotate: bool | None = None,
    ax=None,
    cmap: str = "viridis",
):
    """One (T_q, T_k) map, queries as rows, keys as columns, labelled with tokens."""
    w = to_numpy(weights)
    if w.ndim != 2:
        raise ValueError(f"expected a (T_q, T_k) map, got shape {w.shape}")
    fig, ax = (
        plt.subplots(figsize=(0.5 * w.shape[1] + 2.2, 0.45 * w.shape[0] + 1.2))
        if ax is None
        else (ax.figure, ax)
    )
    im = ax.imshow(w, cmap=cmap, vmin=0.0, vmax=max(1e-9, float(np.nanmax(w))))
    ax.set_xticks(range(w.shape[1]), keys if keys is not None else range(w.shape[1]), rotation=45)
    ax.set_yticks(range(w.shape[0]), queries if queries is not None else range(w.shape[0]))
    ax.set_xlabel("key")
    ax.set_ylabel("query")
    ax.set_title(title)
    if annotate if annotate is not None else w.size <= 64:
        for i in range(w.shape[0]):
            for j in range(w.shape[1]):
                ax.text(
                    j,
                    i,
                    f"{w[i, j]:.2f}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if w[i, j] < 0.6 * np.nanmax(w) else "black",
                )
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    fig.tight_layout()
    return fig


def attention_grid(
    maps,
    tokens: Sequence[str] | None = None,
    row_titles: Sequence[str] | None = None,
    col_titles: Sequence[str] | None = None,
    title: str | None = None,
    cmap: str = "viridis",
    size: float = 2.0,
):
    """A (rows, cols, T_q, T_k) stack, e.g. layers x heads, with one shared colour bar.

    A list of per-layer (H, T, T) maps works too (as returned by ``attention_maps``).
    """
    if isinstance(maps, (list, tuple)):
        maps = np.stack([to_numpy(m) for m in maps])
    m = to_numpy(maps)
    if m.ndim == 3:
        m = m[None]
    if m.ndim != 4:
        raise ValueError(f"expected (rows, cols, T_q, T_k), got shape {m.shape}")
    rows, cols = m.shape[:2]
    fig, axes = plt.subplots(
        rows,
        cols,
        figsize=(size * cols + 1.0, size * rows + 0.4),
        squeeze=False,
        sharex=True,
        sharey=True,
    )
    vmax = float(np.nanmax(m)) or 1.0
    for r in range(rows):
        for c in range(cols):
            ax = axes[r, c]
            im = ax.imshow(m[r, c], cmap=cmap, vmin=0.0, vmax=vmax)
            if tokens is not None:
                ax.set_xticks(range(len(tokens)), tokens, rotation=90, fontsize=6)
                ax.set_yticks(range(len(tokens)), tokens, fontsize=6)
            else:
                ax.set_xticks([])
                ax.set_yticks([])
            if r == 0:
                ax.set_title(col_titles[c] if col_titles else f"head {c}")
            if c == 0:
                ax.set_ylabel(row_titles[r] if row_titles else f"layer {r}")
    fig.colorbar(im, ax=axes, fraction=0.02, pad=0.02)
    if title:
        fig.suptitle(title)
    return fig


def curves(
    series: dict,
    xlabel: str = "step",
    ylabel: str = "loss",
    title: str = "",
    logy: bool = False,
    logx: bool = False,
    ax=None,
    marker: str | None = None,
):
    """Several named 1-D series (or (x, y) pairs) on one axis: training curves, costs vs T."""
    fig, ax = plt.subplots(figsize=(5.5, 3.4)) if ax is None else (ax.figure, ax)
    for name, values in series.items():
        if isinstance(values, tuple) and len(values) == 2:
            ax.plot(to_numpy(values[0]), to_numpy(values[1]), label=name, marker=marker)
        else:
            ax.plot(to_numpy(values), label=name, marker=marker)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if logy:
        ax.set_yscale("log")
    if logx:
        ax.set_xscale("log")
    if title:
        ax.set_title(title)
    if len(series) > 1:
        ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def matrix(
    values,
    xlabel: str = "",
    ylabel: str = "",
    title: str = "",
    cmap: str = "RdBu_r",
    symmetric: bool = True,
    ax=None,
    colorbar: bool = True,
):
    """Any 2-D array as an image: positional-encoding tables, similarity matrices."""
    v = to_numpy(values)
    fig, ax = plt.subplots(figsize=(5.5, 3.6)) if ax is None else (ax.figure, ax)
    lim = float(np.nanmax(np.abs(v))) or 1.0
    im = ax.imshow(
        v,
        cmap=cmap,
        aspect="auto",
        vmin=-lim if symmetric else None,
        vmax=lim if symmetric else None,
    )
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    if colorbar:
        fig.colorbar(im, ax=ax)
    fig.tight_layout()
    return fig


def image_grid(
    images,
    titles: Sequence[str] | None = None,
    cols: int = 8,
    size: float = 1.2,
    cmap: str = "gray",
    title: str | None = None,
):
    """(N, H, W), (N, 1, H, W) or (N, 3, H, W) images in a grid."""
    x = to_numpy(images)
    if x.ndim == 4 and x.shape[1] in (1, 3):
        x = np.moveaxis(x, 1, -1)
    if x.ndim == 4 and x.shape[-1] == 1:
        x = x[..., 0]
    n = x.shape[0]
    cols = min(cols, n)
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(size * cols, size * rows + 0.3), squeeze=False)
    for i, ax in enumerate(axes.flat):
        ax.axis("off")
        if i < n:
            img = x[i]
            if img.ndim == 3:
                img = (img - img.min()) / max(1e-9, img.max() - img.min())
            ax.imshow(img, cmap=None if img.ndim == 3 else cmap)
            if titles is not None:
                ax.set_title(titles[i], fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def attention_overlay(ax, image, weights, title: str | None = None):
    """Draw on ``ax``: a (H, W) ``image`` in gray, and over it ``weights`` (g, g), one per patch
    (ViT, notebook 09), stretched over the image, 0 (dark) to 1 (bright). Returns the overlay,
    for a colorbar (``fig.colorbar(shown, ax=axes)``); unlike the functions above, no Figure."""
    image = to_numpy(image)
    height, width = image.shape
    ax.imshow(image, cmap="gray")
    shown = ax.imshow(
        to_numpy(weights),
        cmap="inferno",
        alpha=0.6,
        extent=(-0.5, width - 0.5, height - 0.5, -0.5),  # each patch over its pixels
        vmin=0,
        vmax=1,
    )
    if title is not None:
        ax.set_title(title, fontsize=8)
    ax.axis("off")
    return shown


def check_difference(expected, got, title: str = ""):
    """A failed check's small matrix: expected and the learner's side by side, with the cells
    that differ outlined in red (drawn inline by ``check()``; the grader's feedback stays text)."""
    e, g = to_numpy(expected).astype(float), to_numpy(got).astype(float)
    differ = ~np.isclose(e, g, rtol=1e-4, atol=1e-5, equal_nan=True)
    fig, axes = plt.subplots(1, 2, figsize=(2 + 0.5 * e.shape[1] * 2, 1 + 0.4 * e.shape[0]))
    finite = np.concatenate([e[np.isfinite(e)], g[np.isfinite(g)]])
    lo, hi = (finite.min(), finite.max()) if finite.size else (0.0, 1.0)
    for ax, m, name in zip(axes, (e, g), ("expected", "yours")):
        ax.imshow(m, cmap="viridis", vmin=lo, vmax=hi)
        ax.set_title(name)
        ax.set_xticks(range(m.shape[1]))
        ax.set_yticks(range(m.shape[0]))
    for i, j in zip(*np.nonzero(differ)):
        axes[1].add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec="red", lw=2))
    fig.suptitle(f"{title}: {int(differ.sum())} cells differ (red)")
    fig.tight_layout()
    return fig


def show_check_figure(result) -> None:
    """Draw a failed check's expected and got (``result.figure``) side by side in IPython; never
    raises (a figure is a bonus), never outside a notebook."""
    try:
        from IPython import get_ipython
        from IPython.display import display

        if get_ipython() is None:
            return
        expected, got = (to_numpy(t) for t in result.figure)
        while expected.ndim > 2 and expected.shape == got.shape:  # the first matrix
            expected, got = expected[0], got[0]
        if expected.shape != got.shape or expected.ndim != 2 or max(expected.shape) > 16:
            return
        fig = check_difference(expected, got, result.exercise)
    except Exception:
        return
    display(fig)
    plt.close(fig)
