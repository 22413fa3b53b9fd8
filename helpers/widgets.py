"""ipywidgets explorers that degrade to a static figure.

:func:`explorer` shows a live control in JupyterLab and, in the same output, a PNG of one
setting for front ends that cannot run widgets (nbval, GitHub, exported HTML, a closed
kernel). The PNG and the widget are one display bundle: a front end picks what it can show.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable

import matplotlib.pyplot as plt


def figure_png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def explorer(draw: Callable[..., object], static: dict, description: str, **controls):
    """Display an interactive view of ``draw(**values)`` with a static fallback.

    ``draw`` returns a matplotlib Figure; ``static`` gives the values for the fallback image;
    ``controls`` are ipywidgets controls (or abbreviations, as for ``ipywidgets.interact``).
    Returns the widget (None when ipywidgets is not installed, after showing the figure).
    """
    from IPython.display import display

    fallback = figure_png(draw(**static))
    text = f"{description} (static view: " + ", ".join(f"{k}={v}" for k, v in static.items()) + ")"
    try:
        import ipywidgets as w
    except ImportError:
        display({"image/png": fallback, "text/plain": text}, raw=True)
        return None

    # The figure goes into the Output widget's state, not through display(): a kernel client
    # that does not route output to widgets (nbval) would otherwise add it to the cell's
    # outputs, and the stored notebook (run with nbclient, which does route) would differ.
    out = w.Output()

    def update(**values):
        png = figure_png(draw(**values))
        out.outputs = (
            {
                "output_type": "display_data",
                "metadata": {},
                "data": {"image/png": png, "text/plain": description},
            },
        )

    ui = w.interactive(update, clear_output=False, **controls)
    ui.children = (*ui.children[:-1], out)  # our output area instead of interactive's
    bundle = ui._repr_mimebundle_()
    bundle = bundle[0] if isinstance(bundle, tuple) else bundle
    bundle["text/plain"] = text
    bundle["image/png"] = fallback
    display(bundle, raw=True)
    return ui
