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
    colorbar_label: str = "attention weight",
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
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label=colorbar_label)
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
    xlabel: str = "key",
    ylabel: str = "query",
    colorbar_label: str = "attention weight",
):
    """A (rows, cols, T_q, T_k) stack, e.g. layers x heads, with one shared colour bar.

    A list of per-layer (H, T, T) maps works too (as returned by ``attention_maps``). The
    bottom row's x axes say ``xlabel`` (keys), the left column's y axes ``ylabel`` (queries),
    under the row's title when there are several rows or ``row_titles``.
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
        figsize=(size * cols + 1.2, size * rows + 0.8),
        squeeze=False,
        sharex=True,
        sharey=True,
    )
    vmax = float(np.nanmax(m)) or 1.0
    fontsize = 8 if tokens is None or len(tokens) <= 10 else 7
    for r in range(rows):
        for c in range(cols):
            ax = axes[r, c]
            im = ax.imshow(m[r, c], cmap=cmap, vmin=0.0, vmax=vmax)
            if tokens is not None:
                ax.set_xticks(range(len(tokens)), tokens, rotation=90, fontsize=fontsize)
                ax.set_yticks(range(len(tokens)), tokens, fontsize=fontsize)
            else:
                ax.set_xticks([])
                ax.set_yticks([])
            if r == 0:
                ax.set_title(col_titles[c] if col_titles else f"head {c}")
            if r == rows - 1:
                ax.set_xlabel(xlabel)
            if c == 0:
                named = row_titles is not None or rows > 1
                row = row_titles[r] if row_titles else f"layer {r}"
                ax.set_ylabel(f"{row}\n{ylabel}" if named else ylabel)
    fig.colorbar(im, ax=axes, fraction=0.02, pad=0.02, label=colorbar_label)
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
    legend: str = "best",
):
    """Several named 1-D series (or (x, y) pairs) on one axis: training curves, costs vs T.

    ``legend``: where the key goes, a matplotlib ``loc`` or "outside" (right of the axes, off
    the curves)."""
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
    if len(series) > 1 and legend == "outside":
        ax.legend(loc="center left", bbox_to_anchor=(1.02, 0.5))
    elif len(series) > 1:
        ax.legend(loc=legend)
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
    colorbar_label: str = "value",
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
        fig.colorbar(im, ax=ax, label=colorbar_label)
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
    """Draw on ``ax``: ``weights`` (g, g), one per patch (ViT, notebook 09), stretched over the
    (H, W) ``image``, 0 (dark) to 1 (bright), with the image's strokes outlined in cyan on top, so
    that both the weights and what they fall on stay visible. Returns the weights' image, for a
    colorbar (``fig.colorbar(shown, ax=axes, label=...)``); unlike the functions above, no
    Figure."""
    image = to_numpy(image)
    height, width = image.shape
    shown = ax.imshow(
        to_numpy(weights),
        cmap="inferno",
        extent=(-0.5, width - 0.5, height - 0.5, -0.5),  # each patch over its pixels
        vmin=0,
        vmax=1,
    )
    low, high = float(image.min()), float(image.max())
    if high > low:
        ax.contour(image, levels=[(low + high) / 2], colors="cyan", linewidths=1.2)
    if title is not None:
        ax.set_title(title, fontsize=8)
    ax.axis("off")
    return shown


# What the rows and columns of a check's matrix are, where the exercise says; else generic.
MASK_COLOURS = ("#d9d9d9", "#2ca02c")  # False (may not attend): light gray; True: green


def _mask_difference(e, g, axes, xlabel, ylabel):
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    for ax, m, name in zip(axes, (e, g), ("expected", "yours")):
        ax.imshow(m, cmap=ListedColormap(MASK_COLOURS), vmin=0, vmax=1)
        ax.set_title(name)
    # 0: the same, 1: yours True where False is expected, 2: yours False where True is expected
    diff = np.where(e == g, 0, np.where(g, 1, 2))
    ax = axes[2]
    ax.imshow(diff, cmap=ListedColormap(["white", "#d62728", "#1f77b4"]), vmin=0, vmax=2)
    ax.set_title(f"difference: {int((diff > 0).sum())} cells")
    keys = [
        Patch(fc=MASK_COLOURS[1], ec="k", label="True: may attend"),
        Patch(fc=MASK_COLOURS[0], ec="k", label="False: masked"),
        Patch(fc="#d62728", ec="k", label="yours True, expected False"),
        Patch(fc="#1f77b4", ec="k", label="yours False, expected True"),
        Patch(fc="white", ec="k", label="the same"),
    ]
    axes[0].figure.legend(handles=keys, loc="outside lower center", ncol=3, fontsize=8)


def _value_difference(e, g, axes, fig):
    finite = np.concatenate([e[np.isfinite(e)], g[np.isfinite(g)]])
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    for ax, m, name in zip(axes, (e, g), ("expected", "yours")):
        shown = ax.imshow(m, cmap="viridis", vmin=lo, vmax=hi)
        ax.set_title(name)
    fig.colorbar(shown, ax=list(axes[:2]), fraction=0.03, pad=0.03, label="value")
    diff = g - e
    finite = np.isfinite(diff)
    lim = float(np.abs(diff[finite]).max()) if finite.any() else 0.0
    lim = lim or 1.0  # all equal: a scale of +-1 shows white
    cmap = plt.get_cmap("RdBu_r").with_extremes(bad="black")
    shown = axes[2].imshow(np.where(finite, diff, np.nan), cmap=cmap, vmin=-lim, vmax=lim)
    bad = int((~finite).sum())
    axes[2].set_title(
        f"yours − expected (largest {lim:.2g})" + (f"\nblack: {bad} not finite" if bad else "")
    )
    fig.colorbar(shown, ax=axes[2], fraction=0.046, pad=0.04, label="yours − expected")


def check_difference(
    expected,
    got,
    title: str = "",
    xlabel: str = "last dimension (index)",
    ylabel: str = "dimension before it (index)",
):
    """A failed check's small matrix: expected, the learner's and their difference, side by
    side (drawn inline by ``check()``; the grader's feedback stays text). Boolean masks are drawn
    in two colours with a legend (True = may attend); numbers share one colour bar, and the
    difference has a diverging one scaled to its largest value, so a small error still shows
    where it lies."""
    e, g = to_numpy(expected), to_numpy(got)
    mask = e.dtype == bool and np.isin(g, (0, 1)).all()
    rows, cols = e.shape
    wide = cols > 8  # three panels side by side would not fit the notebook: one above another
    panel = (0.4 * cols + 0.9, 0.4 * rows + 0.7)
    size = (
        (panel[0] + 2.2, 3 * panel[1] + (1.4 if mask else 0.5))
        if wide
        else (3 * panel[0] + (0.5 if mask else 1.6), panel[1] + (1.8 if mask else 1.0))
    )
    fig, axes = plt.subplots(
        *((3, 1) if wide else (1, 3)), figsize=size, layout="constrained", sharex=True, sharey=True
    )
    for ax in axes:
        ax.set_xticks(range(cols))
        ax.set_yticks(range(rows))
        ax.tick_params(labelsize=7)
    for ax in axes if wide else axes[:1]:
        ax.set_ylabel(ylabel)
    for ax in axes[-1:] if wide else axes:
        ax.set_xlabel(xlabel)
    if mask:
        _mask_difference(e, g.astype(bool), axes, xlabel, ylabel)
    else:
        _value_difference(e.astype(float), g.astype(float), axes, fig)
    fig.suptitle(title)
    return fig


def show_check_figure(result) -> None:
    """Draw a failed check's expected, got (``result.figure``) and their difference in IPython;
    never raises (a figure is a bonus), never outside a notebook."""
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
        fig = check_difference(expected, got, result.exercise, *getattr(result, "axes", ()))
    except Exception:
        return
    display(fig)
    plt.close(fig)
