"""End to end: JupyterLab in headless Chromium, as a learner uses it.

Opens a student notebook and solved notebooks (copies, outputs cleared, in the server's
temporary root), runs their cells from the Run menu, and checks what a person would see: the
kernel starts, a check cell prints its verdict, a plot appears as an image, a
``helpers.widgets.explorer`` slider (in a small notebook the test writes, and in notebook 02) is
a live control that redraws its figure, and a ``tqdm.auto`` progress bar renders as a bar.
Screenshots: ``artifacts/e2e/*.png``.

Skipped, with the reason, when Chromium or playwright is missing; with E2E_REQUIRED=1 (set by
CI) a missing browser is an error instead.
"""

from __future__ import annotations

import re

import nbformat
import pytest

from ..speed import scaled
from .conftest import REPO, skip_without_browser

skip_without_browser("JupyterLab browser test")

pytestmark = pytest.mark.slow

KERNEL_S = scaled(120) * 1000  # ms: kernel start and whole-notebook runs on a 2-core machine
UI_S = scaled(60) * 1000  # ms: a page element appearing

SOLVED = "solutions/01_dot_product_attention.ipynb"
STUDENT = "notebooks/01_dot_product_attention.ipynb"

WIDGETS_SOURCE = [
    """\
import math

import ipywidgets as w
import matplotlib.pyplot as plt

from helpers.widgets import explorer


def draw(freq):
    fig, ax = plt.subplots(figsize=(4, 2.5))
    xs = [i / 20 for i in range(126)]
    ax.plot(xs, [math.sin(freq * x) for x in xs])
    ax.set_title(f"sin({freq} x)")
    return fig


ui = explorer(draw, static={"freq": 1}, description="a sine wave",
              freq=w.IntSlider(value=1, min=1, max=6, description="freq"))""",
    """\
from tqdm.auto import tqdm

total = 0
for i in tqdm(range(40), desc="demo loop"):
    total += i
print("loop done:", total)""",
]


def copy_without_outputs(src, dst):
    nb = nbformat.read(str(src), as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nbformat.write(nb, str(dst))


def write_notebook(sources, dst):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    nbformat.write(nb, str(dst))


def open_notebook(context, lab, path, workspace):
    """A new tab on ``path``; returns (page, notebook panel) once its kernel is idle."""
    page = context.new_page()
    page.goto(lab.url(path, workspace), wait_until="domcontentloaded", timeout=UI_S)
    panel = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")
    panel.locator(".jp-Cell").first.wait_for(timeout=UI_S)
    wait_kernel_idle(panel)
    return page, panel


def wait_kernel_idle(panel):
    """The toolbar names the Python kernel and its execution indicator says idle."""
    panel.locator(".jp-KernelName", has_text="Python 3").wait_for(timeout=KERNEL_S)
    panel.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for(
        state="attached", timeout=KERNEL_S
    )


def run_all(page):
    """Run ▸ Run All Cells, from the menu bar as a person would."""
    page.locator("#jp-MainMenu").get_by_role("menuitem", name="Run", exact=True).click()
    page.locator("li.lm-Menu-item[data-command='runmenu:run-all']").click()


def wait_all_ran(page, panel):
    """Every code cell shows an execution count (none is queued ``[*]`` or unrun ``[ ]``)."""
    page.wait_for_function(
        "panel => [...panel.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')]"
        ".every(p => /\\[\\d+\\]/.test(p.textContent))",
        arg=panel.element_handle(),
        timeout=KERNEL_S,
    )


def wait_redrawn(page, cell, before):
    """The figure in the cell's widget output has been replaced by a loaded new image."""
    page.wait_for_function(
        "([cell, before]) => { const img = cell.querySelector('.widget-output img');"
        " return img !== null && img.complete && img.getAttribute('src') !== before; }",
        arg=[cell.element_handle(), before],
        timeout=KERNEL_S,
    )


def output_with(panel, text):
    return panel.locator(".jp-OutputArea-output", has_text=text).first


def shoot(page, artifacts, name, element=None):
    if element is not None:
        element.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / name))


def test_student_notebook(lab, browser_context, artifacts):
    copy_without_outputs(REPO / STUDENT, lab.root / "student_01.ipynb")
    page, panel = open_notebook(browser_context, lab, "student_01.ipynb", "student")
    assert "Python 3" in panel.locator(".jp-KernelName").text_content()
    run_all(page)
    # Run All stops at the first error: the stub raises in the cell after the first check.
    verdict = output_with(panel, "01.softmax: not implemented yet")
    verdict.wait_for(timeout=KERNEL_S)
    assert "fill in the TODO above" in verdict.text_content()
    error = output_with(panel, "NotImplementedError")
    error.wait_for(timeout=UI_S)
    shoot(page, artifacts, "01_student_check_verdict.png", verdict)
    page.close()


def test_solved_notebook(lab, browser_context, artifacts):
    copy_without_outputs(REPO / SOLVED, lab.root / "solved_01.ipynb")
    page, panel = open_notebook(browser_context, lab, "solved_01.ipynb", "solved")
    assert panel.locator(".jp-OutputArea-output").count() == 0  # outputs come from this run
    run_all(page)
    code = [c.source for c in nbformat.read(str(REPO / SOLVED), 4).cells if c.cell_type == "code"]
    checked = re.findall(r'check\("(01\.\w+)"', "\n".join(code))  # every check, in order
    last = output_with(panel, f"✅ {checked[-1]}:")  # the last check cell of the notebook
    last.wait_for(timeout=KERNEL_S)
    output_with(panel, "attention(P x) == P attention(x): True").wait_for(timeout=UI_S)
    verdicts = panel.locator(".jp-OutputArea-output", has_text=re.compile(r"✅ 01\.\w+: "))
    assert verdicts.count() == len(checked), [t[:120] for t in verdicts.all_text_contents()]
    assert output_with(panel, "Traceback").count() == 0
    image = panel.locator(".jp-OutputArea-output img").first
    image.wait_for(timeout=UI_S)
    box = image.bounding_box()
    assert box and box["width"] > 200 and box["height"] > 100, box
    assert image.evaluate("img => img.complete && img.naturalWidth > 0")
    shoot(page, artifacts, "02_solved_verdicts.png", verdicts.first)
    shoot(page, artifacts, "03_solved_plot.png", image)
    page.close()


def test_widget_and_progress_bar(lab, browser_context, artifacts):
    write_notebook(WIDGETS_SOURCE, lab.root / "widgets.ipynb")
    page, panel = open_notebook(browser_context, lab, "widgets.ipynb", "widgets")
    run_all(page)
    cells = panel.locator(".jp-CodeCell")
    widget_cell, progress_cell = cells.nth(0), cells.nth(1)

    # the explorer: a live slider, not the text fallback, and its figure
    slider = widget_cell.locator(".widget-slider")
    slider.wait_for(timeout=KERNEL_S)
    out = widget_cell.locator(".jp-OutputArea-output").first
    assert "HBox(children" not in out.text_content()
    assert "static view" not in out.text_content()
    figure = widget_cell.locator(".widget-output img")
    figure.wait_for(timeout=UI_S)
    before = figure.get_attribute("src")
    readout = widget_cell.locator(".widget-readout")
    assert readout.text_content().strip() == "1"
    shoot(page, artifacts, "04_widget_before.png", slider)

    # move it with the keyboard, as a person can: focus the handle, press →
    handle = widget_cell.locator(".noUi-handle")
    handle.focus()
    handle.press("ArrowRight")
    wait_redrawn(page, widget_cell, before)
    assert readout.text_content().strip() == "2"
    assert figure.count() == 1  # redrawn in place, not appended
    shoot(page, artifacts, "05_widget_after.png", slider)

    # tqdm.auto: a progress bar widget that reaches its end
    progress_cell.locator(".jp-OutputArea-output", has_text="loop done: 780").wait_for(
        timeout=KERNEL_S
    )
    out = progress_cell.locator(".jp-Cell-outputArea")
    bar = out.locator(".jupyter-widgets.widget-hprogress .progress-bar")
    bar.wait_for(timeout=UI_S)
    assert bar.evaluate("el => el.style.width") == "100%"
    assert "HBox(children" not in out.text_content()
    text = " ".join(out.text_content().split())  # tqdm pads with U+2007 figure spaces
    assert re.search(r"demo loop: 100% 40/40", text), text
    shoot(page, artifacts, "06_progress_bar.png", bar)
    page.close()


NB02 = "solutions/02_scaled_dot_product_attention.ipynb"


def test_notebook_02_explorer(lab, browser_context, artifacts):
    """The series' own explorer (notebook 02): its checks pass and its controls redraw."""
    src = REPO / NB02
    if not src.exists() or "explorer(" not in src.read_text():
        pytest.skip(f"{NB02} has no helpers.widgets.explorer yet")
    copy_without_outputs(src, lab.root / "solved_02.ipynb")
    page, panel = open_notebook(browser_context, lab, "solved_02.ipynb", "nb02")
    run_all(page)
    cell = panel.locator(".jp-CodeCell", has=page.locator(".widget-slider")).first
    cell.wait_for(timeout=KERNEL_S)
    figure = cell.locator(".widget-output img")
    figure.wait_for(timeout=KERNEL_S)
    assert "HBox(children" not in cell.locator(".jp-Cell-outputArea").text_content()
    wait_all_ran(page, panel)
    assert output_with(panel, "Traceback").count() == 0
    verdicts = panel.locator(".jp-OutputArea-output", has_text=re.compile(r"✅ 02\.\w+: .* passed"))
    assert verdicts.count() >= 1
    assert panel.locator(".jp-OutputArea-output", has_text="❌").count() == 0
    shoot(page, artifacts, "07_nb02_explorer_before.png", cell.locator(".jp-Cell-outputArea"))

    def redraw(action):
        before = figure.get_attribute("src")
        action()
        wait_redrawn(page, cell, before)

    handle = cell.locator(".noUi-handle").first
    readout = cell.locator(".widget-readout").first
    start = readout.text_content().strip()
    redraw(lambda: (handle.focus(), handle.press("ArrowRight")))
    assert readout.text_content().strip() != start
    checkbox = cell.locator(".widget-checkbox input[type=checkbox]")
    if checkbox.count():
        redraw(lambda: checkbox.first.click())
        assert checkbox.first.is_checked()
    shoot(page, artifacts, "08_nb02_explorer_after.png", cell.locator(".jp-Cell-outputArea"))
    page.close()
