"""The class report (``--report``) in headless Chromium: opened from a file:// URL, offline.

Renders the report of the generated 30-submission class (tests/grading/classbook.py), checks
what an instructor would see (the embedded plots decode, the top mistake and its count, the
errored submissions) and saves ``artifacts/report/report.png``.
"""

from __future__ import annotations

import shutil

import pytest

from .conftest import REPO, skip_without_browser

skip_without_browser("report browser test")

pytestmark = pytest.mark.slow

ARTIFACTS = REPO / "artifacts" / "report"


def test_report_renders_in_chromium(tmp_path, browser_context):
    from helpers.grading.books.gradebook import read_rows
    from helpers.grading.books.report import write_report
    from tests.grading import classbook

    report = tmp_path / "report.html"
    write_report(report, read_rows(classbook.write(tmp_path / "grades.csv")))
    page = browser_context.new_page()
    requests = []
    page.on("request", lambda req: requests.append(req.url))
    page.goto(report.as_uri())
    page.wait_for_load_state("load")
    assert page.title() == "Class report"
    # every plot is an embedded PNG the browser decoded (naturalWidth 0 = a broken image)
    widths = page.eval_on_selector_all("img", "imgs => imgs.map(i => i.complete && i.naturalWidth)")
    assert len(widths) == 2 and all(w and w > 100 for w in widths)
    code, count = classbook.NO_SCALE[0], 8
    row = page.locator(f"tr[data-mistake='{code}']")
    assert row.is_visible() and row.locator("td").nth(1).inner_text() == str(count)
    assert page.locator("#problems tr[data-status]").count() == 3  # 2 errors, 1 timeout
    assert all(url.startswith(("file:", "data:")) for url in requests), requests
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    ARTIFACTS.mkdir(parents=True)
    page.screenshot(path=str(ARTIFACTS / "report.png"), full_page=True)
    assert (ARTIFACTS / "report.png").stat().st_size > 10_000
    page.close()
