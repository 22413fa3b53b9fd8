"""The rule every figure of the series meets, read from the live matplotlib Figure.

``figure_problems(fig)`` lists what a reader cannot tell from the figure alone (empty: it
stands alone). For every axes of the figure:

1. A colour bar has a label (what the colour measures, e.g. "attention weight").
2. A colour image (a 2-D array drawn through a colour map other than a gray one) has a key:
   a colour bar drawn from the same colour map and limits, or a legend on its axes or the
   figure. Photos (RGB) and gray images of pixels need none.
3. An axes drawn with its axis lines (``axison``) and data has an x label and a y label, its
   own or one of an axes it shares that axis with (a grid labels its outer row and column).
   Exempt: an axes switched off (``ax.axis("off")``) that shows an image, when it has a title
   or the figure a suptitle that says what the image is; an axes switched off with no image
   (a blank cell of a grid, a panel of text) draws nothing to label.
4. Two or more labelled lines, bars or markers on one axes come with a legend (its own or the
   figure's).
5. Tick labels, axis labels and titles are at least ``MIN_POINTS`` points (at the series' 80
   dpi, 7 pt is about 8 px; 6 pt ones read as about 5 px).
6. A title (an axes' own, left, centre or right, or the figure's suptitle) says what it means:
   no literal underscore outside ``$...$`` and exercise ids (``PE_p`` prints as typed, ``$PE_p$``
   is rendered as math; ``07b.top_p_filter`` is a name), and no ``None``, the value of an option
   that is not set (say what is set instead).

The file is plain Python importing only matplotlib, so that conftest.py can send its text to a
notebook kernel (:func:`kernel_code`), where every figure rendered to a PNG is checked.
"""

from __future__ import annotations

import re

MIN_POINTS = 7.0
HEADER = "This figure does not stand alone (tests/figure_rules.py):"
GRAY_MAPS = {"gray", "gray_r", "Greys", "Greys_r", "binary", "binary_r", "bone", "bone_r"}


def _is_colorbar(ax) -> bool:
    return hasattr(ax, "_colorbar") or ax.get_label() == "<colorbar>"


def _suptitle(fig) -> str:
    sup = getattr(fig, "_suptitle", None)
    return sup.get_text() if sup is not None else ""


def _shared_label(ax, which: str) -> bool:
    group = ax.get_shared_x_axes() if which == "x" else ax.get_shared_y_axes()
    for other in group.get_siblings(ax):
        if (other.get_xlabel() if which == "x" else other.get_ylabel()).strip():
            return True
    return False


def _keys(fig) -> set:
    keys = set()
    for ax in fig.axes:
        cb = getattr(ax, "_colorbar", None)
        if cb is not None and cb.mappable is not None:
            keys.add((cb.mappable.get_cmap().name, tuple(float(v) for v in cb.mappable.get_clim())))
    return keys


def _small_texts(ax) -> list[str]:
    texts = [*ax.get_xticklabels(), *ax.get_yticklabels(), ax.xaxis.label, ax.yaxis.label]
    texts.append(ax.title)
    return sorted(
        {
            f"'{t.get_text()}' ({t.get_fontsize():g} pt)"
            for t in texts
            if t.get_visible() and t.get_text().strip() and t.get_fontsize() < MIN_POINTS
        }
    )


def _title_problems(where: str, title: str) -> list[str]:
    problems = []
    plain = re.sub(r"\$[^$]*\$|\b\d\d[a-z]?\.\w+", "", title)  # math is rendered; ids are names
    if "_" in plain:
        problems.append(f"{where}: the title '{title}' prints a literal underscore (math: $...$)")
    if re.search(r"\bNone\b", title):
        problems.append(f"{where}: the title '{title}' states an option that is not set (None)")
    return problems


def figure_problems(fig) -> list[str]:
    """What the figure does not say (see the module's docstring); empty when it stands alone."""
    problems = []
    keys = _keys(fig)
    suptitle = _suptitle(fig).strip()
    problems += _title_problems("suptitle", suptitle)
    for n, ax in enumerate(fig.axes):
        if not ax.get_visible():
            continue
        where = f"axes {n}" + (f" '{ax.get_title()}'" if ax.get_title() else "")
        for loc in ("left", "center", "right"):
            problems += _title_problems(f"axes {n}", ax.get_title(loc=loc))
        if _is_colorbar(ax):
            if not (ax.get_ylabel().strip() or ax.get_xlabel().strip()):
                problems.append(f"{where}: a colour bar without a label")
            continue
        keyed = bool(ax.get_legend() or fig.legends)
        for image in ax.images:
            array = image.get_array()
            if not image.get_visible() or array is None or array.ndim != 2:
                continue
            key = (image.get_cmap().name, tuple(float(v) for v in image.get_clim()))
            if key[0] not in GRAY_MAPS and key not in keys and not keyed:
                problems.append(f"{where}: colours ({key[0]}) without a colour bar or a legend")
        if not ax.axison:
            if ax.images and not (ax.get_title().strip() or suptitle):
                problems.append(f"{where}: an image with its axes off and no title saying what")
            continue
        if not ax.has_data():
            continue
        if not (ax.get_xlabel().strip() or _shared_label(ax, "x")):
            problems.append(f"{where}: no x-axis label")
        if not (ax.get_ylabel().strip() or _shared_label(ax, "y")):
            problems.append(f"{where}: no y-axis label")
        labels = [name for name in ax.get_legend_handles_labels()[1] if name.strip()]
        if len(labels) >= 2 and not keyed:
            problems.append(f"{where}: {len(labels)} labelled series and no legend")
        small = _small_texts(ax)
        if small:
            problems.append(f"{where}: text under {MIN_POINTS:g} pt: {', '.join(small[:3])}")
    return problems


def install() -> None:
    """From now on, every figure rendered to an image (shown inline, ``display(fig)``,
    ``savefig``) is checked first, and one with problems prints them on stdout, which nbval
    compares with the stored outputs: the cell fails, naming the problems."""
    import matplotlib.backend_bases as bases

    if getattr(bases.FigureCanvasBase.print_figure, "course_audit", False):
        return
    original = bases.FigureCanvasBase.print_figure

    def print_figure(self, *args, **kwargs):
        problems = figure_problems(self.figure)
        if problems:
            print(HEADER)
            for line in problems:
                print("  " + line)
        return original(self, *args, **kwargs)

    print_figure.course_audit = True
    bases.FigureCanvasBase.print_figure = print_figure


def kernel_code() -> str:
    """Code that installs the check in a kernel from this file's text, in a namespace of its
    own (no name of the notebook's is touched; the kernel needs no access to tests/)."""
    with open(__file__, encoding="utf-8") as f:
        source = f.read()
    return (
        "def _install_figure_rules(source):\n"
        "    rules = {'__name__': 'figure_rules'}\n"
        "    exec(compile(source, 'tests/figure_rules.py', 'exec'), rules)\n"
        "    rules['install']()\n"
        f"_install_figure_rules({source!r})\n"
        "del _install_figure_rules\n"
    )
