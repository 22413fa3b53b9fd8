"""The course's website (``make site``): Sphinx with myst-nb (notebooks and Markdown) and the
book theme. Offline: no notebook is executed (their stored outputs are shown), nothing is
fetched at build time, and the pages load nothing from elsewhere (MathJax is copied into the
site from sphinx-mathjax-offline; widgets show their stored static view)."""

import importlib.util
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # lessons.py, the extension that writes lessons/

project = "From Attention to ViT"
author = "the course's authors"
copyright = "the course's authors"

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "lessons",
]
exclude_patterns = ["_build", "**.ipynb_checkpoints"]

# the notebooks: stored outputs only; a widget's static image (its view needs a live kernel)
nb_execution_mode = "off"
nb_ipywidgets_js = {}
nb_mime_priority_overrides = [("html", "application/vnd.jupyter.widget-view+json", None)]
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3

# MathJax 3 from the sphinx-mathjax-offline package, served from _static/mathjax/ (its own Sphinx
# extension does the same copy, but does not declare itself safe for a parallel read)
offline = importlib.util.find_spec("sphinx-mathjax-offline").submodule_search_locations[0]
html_static_path = ["_static", str(Path(offline) / "static")]
mathjax_path = "mathjax/tex-chtml.js"

html_theme = "sphinx_book_theme"
html_title = project
html_favicon = "_static/favicon.svg"  # a causal mask (a browser asks for one: no 404)
html_css_files = ["site.css"]
html_copy_source = False
html_theme_options = {
    "show_toc_level": 2,
    "use_download_button": False,  # each lesson links its student notebook instead
    "navbar_persistent": [],  # search is in the sidebar (pydata-sphinx-theme 0.20 adds a 2nd one)
}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
html_context = {"default_mode": "auto"}  # light or dark as the reader's system is (empty: an error)
