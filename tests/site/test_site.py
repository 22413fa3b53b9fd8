"""The website (``make site``, docs/): every lesson in order with its figures, links and checks;
no solution code anywhere in it; every internal link and image resolves; nothing is loaded from
elsewhere. The browser's view of it: tests/e2e/test_site_render.py."""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest

from helpers.notebook_files import load_notebook, solution_paths
from helpers.notebooks.student import colab_url, find_regions

from .build import REPO, figures

LESSONS = [p.stem for p in solution_paths()]


class Page(HTMLParser):
    """An HTML page's text (scripts and styles left out), its ids, the URLs it refers to and its
    tables' rows (each a list of its cells' text)."""

    def __init__(self, html: str):
        super().__init__()
        self.text, self.ids, self.urls, self.rows, self._skip = [], set(), [], [], 0
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self._skip += tag in ("script", "style")
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.rows[-1].append("")
        if "id" in attrs:
            self.ids.add(attrs["id"])
        for name in ("href", "src"):
            if attrs.get(name) is not None:
                self.urls.append((tag, attrs.get("rel") or "", attrs[name]))

    def handle_endtag(self, tag):
        self._skip -= tag in ("script", "style") and self._skip > 0

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)
            if self.rows and self.rows[-1] and self.lasttag in ("td", "th", "p", "code", "span"):
                self.rows[-1][-1] += data.strip()


def page(path: Path) -> Page:
    return Page(path.read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- no solution code


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


@functools.cache
def secret_lines(min_chars: int = 12) -> dict[str, str]:
    """Every line of code inside a ``### BEGIN SOLUTION`` region of solutions/ (the open
    exercises' too), whitespace removed, that no student notebook shows (a line the student
    sees anyway, ``return out`` in a stub's context say, is no secret) -> where it comes from."""
    shown = squeeze(
        "".join(
            cell.source
            for path in sorted((REPO / "notebooks").glob("*.ipynb"))
            for cell in load_notebook(path).cells
        )
    )
    secrets = {}
    for path in sorted((REPO / "solutions").rglob("*.ipynb")):
        for index, cell in enumerate(load_notebook(path).cells):
            lines = cell.source.split("\n")
            for region in find_regions(lines, f"{path.name}, cell {index + 1}"):
                for line in lines[region.start + 1 : region.end]:
                    code = squeeze(line)
                    if len(code) >= min_chars and code not in shown:
                        secrets[code] = (
                            f"{path.relative_to(REPO)}, cell {index + 1}: {line.strip()}"
                        )
    return secrets


def readable_text(path: Path) -> str | None:
    """What a file of the site says: an HTML page's text and raw source, a notebook's cells
    and outputs, any other text file as it is; None for images and fonts."""
    if path.suffix in (".png", ".jpg", ".svg", ".gif", ".ico", ".woff", ".woff2", ".ttf", ".eot"):
        return None
    raw = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".html":
        return "".join(page(path).text) + raw
    if path.suffix == ".ipynb":
        return json.dumps(json.loads(raw), ensure_ascii=False) + str(nbformat.reads(raw, 4))
    return raw


def leaks(site: Path, secrets: dict[str, str]) -> list[str]:
    found = []
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        text = readable_text(path)
        if text is None:
            continue
        text = squeeze(text)
        found += [f"{path.relative_to(site)}: {where}" for s, where in secrets.items() if s in text]
    return found


def test_every_solved_notebook_has_secrets_to_keep():
    sources = {where.split(",")[0] for where in secret_lines().values()}
    assert {f"solutions/{name}.ipynb" for name in LESSONS} <= sources


def test_a_solution_line_planted_in_a_page_is_found(tmp_path):
    secrets = secret_lines()
    line = next(where for where in secrets.values() if "02_scaled" in where).split(": ", 1)[1]
    highlighted = "".join(f'<span class="n">{c}</span>' for c in line)  # as pygments splits it
    (tmp_path / "lesson.html").write_text(f"<pre>{highlighted}</pre>", encoding="utf-8")
    (tmp_path / "clean.html").write_text("<p>nothing here</p>", encoding="utf-8")
    assert [f.split(":")[0] for f in leaks(tmp_path, secrets)] == ["lesson.html"]


@pytest.mark.slow
def test_no_solution_code_anywhere_in_the_site(site):
    assert leaks(site, secret_lines()) == []


# --------------------------------------------------------------------------- lessons


@pytest.mark.slow
def test_every_lesson_in_order_from_the_home_page(site):
    home = page(site / "index.html")
    linked = [u for _, _, u in home.urls if u.startswith("lessons/")]
    assert list(dict.fromkeys(u.split("#")[0] for u in linked)) == [
        f"lessons/{name}.html" for name in LESSONS
    ]


@pytest.mark.slow
@pytest.mark.parametrize("name", LESSONS)
def test_a_lesson_shows_its_figures_its_checks_and_the_student_notebook(site, name):
    solved = load_notebook(REPO / "solutions" / f"{name}.ipynb")
    lesson = page(site / "lessons" / f"{name}.html")
    images = [u for tag, _, u in lesson.urls if tag == "img" and "_images/" in u]
    assert len(images) == figures(REPO / "solutions" / f"{name}.ipynb")
    # its checks, in order; an exercise with its stars and minutes, a question as such
    courses = [cell.metadata.get("course", {}) for cell in solved.cells]
    ids = [course["exercise"] for course in courses if "exercise" in course]
    header = lesson.rows.index(["check", "what", "level", "time", "points"])
    rows = lesson.rows[header + 1 : header + 1 + len(ids)]
    assert [row[0] for row in rows] == ids
    for check_id, _, level, minutes, _ in rows:
        if ".q_" in check_id:
            assert (level, minutes) == ("question", "")
        else:
            assert re.fullmatch(r"[★☆]{3}", level) and re.fullmatch(r"\d+\smin", minutes)
    # the student notebook to download, as notebooks/ holds it
    download = [u for _, _, u in lesson.urls if re.search(rf"_downloads/\w+/{name}\.ipynb$", u)]
    assert len(download) == 1
    target = (site / "lessons" / download[0]).resolve()
    assert target.read_bytes() == (REPO / "notebooks" / f"{name}.ipynb").read_bytes()
    # Open in Colab where the notebooks are published on GitHub (make site's REPO=: HELPERS_REPO)
    colab = colab_url(os.environ.get("HELPERS_REPO", ""), "main", f"{name}.ipynb")
    assert [u for _, _, u in lesson.urls if "colab.research" in u] == ([colab] if colab else [])


def lessons_module():
    spec = importlib.util.spec_from_file_location("lessons", REPO / "docs" / "lessons.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "repo, colab",
    [
        (
            "https://github.com/owner/course",
            "https://colab.research.google.com/github/owner/course",
        ),
        ("https://gitlab.com/owner/course", None),  # Colab opens notebooks from GitHub only
        ("", None),
    ],
)
def test_open_in_colab_where_the_course_is_published_on_github(repo, colab):
    name = "02_scaled_dot_product_attention.ipynb"
    solved = load_notebook(REPO / "solutions" / name)
    header = lessons_module().header(solved, name, repo, "spring")
    assert f"[Download the notebook](path:../../notebooks/{name})" in header
    if colab:
        assert f"[Open in Colab]({colab}/blob/spring/notebooks/{name})" in header
    else:
        assert "Colab" not in header


# --------------------------------------------------------------------------- links


def bad_links(site: Path) -> tuple[list[str], list[str]]:
    """The site's internal links and images that lead nowhere (no file, an empty one, no such
    anchor), and what its pages would load from elsewhere (an image, a script, a stylesheet)."""
    # the pages Sphinx wrote (_static/ holds the theme's files, a Jinja template among them)
    pages = {p: page(p) for p in site.rglob("*.html") if "_static" not in p.parts}
    broken, external = [], []
    for path, html in pages.items():
        for tag, rel, url in html.urls:
            parts = urlsplit(url)
            if parts.scheme in ("http", "https") or url.startswith("//"):
                if tag in ("img", "script") or (tag == "link" and "stylesheet" in rel):
                    external.append(f"{path.relative_to(site)}: {url}")
                continue
            if parts.scheme:  # mailto:, data:, javascript:
                continue
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            where = f"{path.relative_to(site)}: <{tag}> {url}"
            if not target.is_file() or target.stat().st_size == 0:
                broken.append(where)
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else page(target).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{where} (no such anchor)")
    return broken, external


def test_the_link_check_finds_what_is_wrong(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "index.html").write_text('<h2 id="x">x</h2><img src="../fig.png">')
    (tmp_path / "fig.png").write_bytes(b"png")
    (tmp_path / "index.html").write_text(
        '<a href="a/">ok</a> <a href="a/index.html#x">ok</a> <a href="#top" id="top">ok</a>'
        '<a href="a/index.html#y">no anchor</a> <img src="missing.png">'
        '<a href="https://example.org">a link out is fine</a>'
        '<script src="https://cdn.example.org/x.js"></script>'
    )
    broken, external = bad_links(tmp_path)
    assert broken == [
        "index.html: <a> a/index.html#y (no such anchor)",
        "index.html: <img> missing.png",
    ]
    assert external == ["index.html: https://cdn.example.org/x.js"]


@pytest.mark.slow
def test_every_internal_link_and_image_resolves_and_nothing_is_fetched_from_elsewhere(site):
    assert bad_links(site) == ([], [])
