"""A notebook file read for what grading uses of it: its cells' code and metadata, and the
notebook's metadata.

The grader never uses what a notebook stored from its last run: outputs (figures, logs: 40 MB
in a notebook a student ran and saved) and attachments are dropped, and so is the text of its
markdown cells, as the JSON parser meets them (``json``'s object hook is called as each object
closes: one output at most is held at a time, never all of them). So a notebook is too
large to grade for what is kept, not for its outputs: ``MAX_NOTEBOOK_BYTES`` bounds the file
(the time a parse takes, the text held while it runs), ``MAX_CODE_BYTES`` what is kept.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..limits import MAX_CODE_BYTES, MAX_NOTEBOOK_BYTES


class TooLarge(ValueError):
    """The file, or what is kept of it, is over its limit: the message says which, in words."""


def _kept(obj: dict) -> dict:
    """An object of the notebook as it closes: an output as nothing, a cell without what grading
    never reads."""
    if "output_type" in obj:
        return {}
    if "cell_type" in obj:
        if "outputs" in obj:
            obj["outputs"] = []
        obj.pop("attachments", None)
        if obj["cell_type"] != "code":
            obj["source"] = ""
    elif isinstance(obj.get("cells"), list) and isinstance(obj.get("metadata"), dict):
        obj["metadata"].pop("widgets", None)  # the widgets' saved state, an output too
    return obj


def read_cells(path: Path) -> dict:
    """The notebook's JSON without outputs, attachments and markdown text. Raises TooLarge,
    OSError, UnicodeDecodeError, ValueError (not JSON) or RecursionError (nested too deeply)."""
    size = path.stat().st_size
    if size > MAX_NOTEBOOK_BYTES:
        raise TooLarge(
            f"the file is too large to read ({size / 2**20:.0f} MB; at most "
            f"{MAX_NOTEBOOK_BYTES // 2**20} MB, outputs included)."
        )
    with open(path, encoding="utf-8") as f:
        data = json.load(f, object_hook=_kept)
    kept = len(json.dumps(data))
    if kept > MAX_CODE_BYTES:
        raise TooLarge(
            f"too large to grade: its code and metadata take {kept / 2**20:.0f} MB, outputs set "
            f"aside (at most {MAX_CODE_BYTES // 2**20} MB)."
        )
    return data
