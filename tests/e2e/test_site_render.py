"""The website (``make site``) in headless Chromium, served over loopback as
``python -m http.server -d build/site`` serves it.

The home page, one lesson and the instructor's guide each render (title, text, typeset math on
the lesson), every image on them decodes, nothing logs an error or a warning, no request fails or
leaves the server, and at a phone's width nothing makes the page wider than the screen. The
site's search finds "causal mask" in lesson 02. Screenshots: ``artifacts/site/*.png``.
"""

from __future__ import annotations

import functools
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from ..site.build import built, figures
from ..speed import scaled
from .conftest import REPO, skip_without_browser

skip_without_browser("website browser test")

pytestmark = pytest.mark.slow

ARTIFACTS = REPO / "artifacts" / "site"
LESSON = "lessons/02_scaled_dot_product_attention.html"
PAGES = {
    "home": ("index.html", "From Attention to ViT"),
    "lesson": (LESSON, "02 · Scaled dot-product attention"),
    "instructors": ("instructors.html", "Instructor’s guide"),
}
PHONE = {"width": 390, "height": 844}
LOAD_MS = scaled(60) * 1000


class Handler(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # no line per request on stderr
        pass


@pytest.fixture(scope="module")
def server():
    handler = functools.partial(Handler, directory=str(built()))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def shots():
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    ARTIFACTS.mkdir(parents=True)
    return ARTIFACTS


def open_page(context, server: str, path: str):
    """The page at ``path``, loaded, and the list its problems go to as they happen."""
    page = context.new_page()
    page.set_default_timeout(LOAD_MS)
    problems = []
    page.on(
        "console",
        lambda m: m.type in ("error", "warning") and problems.append(f"console {m.type}: {m.text}"),
    )
    page.on("pageerror", lambda exc: problems.append(f"uncaught: {exc}"))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
    page.on("response", lambda r: r.status >= 400 and problems.append(f"{r.status}: {r.url}"))
    page.on(
        "request",
        lambda r: (
            r.url.startswith((server, "data:", "blob:"))
            or problems.append(f"left the site: {r.url}")
        ),
    )
    page.goto(f"{server}/{path}")
    page.wait_for_load_state("networkidle")
    return page, problems


# every image loaded (lazy ones too) and decoded: the number of them, or the first broken one
DECODE_IMAGES = """async () => {
  const images = [...document.querySelectorAll("article img")];
  images.forEach((img) => { img.loading = "eager"; });
  for (const img of images) {
    try { await img.decode(); } catch (e) { return "broken: " + img.src; }
    if (!img.naturalWidth) return "empty: " + img.src;
  }
  return images.length;
}"""


@pytest.mark.parametrize("name", PAGES)
def test_a_page_renders_with_its_figures_and_no_error(browser_context, server, shots, name):
    path, title = PAGES[name]
    page, problems = open_page(browser_context, server, path)
    assert page.title().startswith(title)
    assert len(page.locator("article").inner_text()) > 1000
    images = page.evaluate(DECODE_IMAGES)
    assert isinstance(images, int), images
    if name == "lesson":  # every figure of the solved notebook, a widget's static view included
        assert images == figures(REPO / "solutions" / Path(LESSON).with_suffix(".ipynb").name)
        page.wait_for_selector("article mjx-container")  # MathJax, served by the site itself
        assert "NotImplementedError" in page.locator("article").inner_text()  # the student's cells
    page.screenshot(path=str(shots / f"{name}.png"))
    page.set_viewport_size(PHONE)
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= PHONE["width"], f"{path} is {wide} px wide on a {PHONE['width']} px phone"
    if name == "lesson":
        page.screenshot(path=str(shots / "lesson-phone.png"))
    page.close()
    assert problems == []


def test_search_finds_causal_mask_in_lesson_02(browser_context, server):
    page, problems = open_page(browser_context, server, "search.html?q=causal+mask")
    hit = page.locator(f"ul.search a[href^='{LESSON}']").first
    hit.wait_for()
    assert "Scaled dot-product attention" in hit.inner_text()
    page.close()
    assert problems == []
