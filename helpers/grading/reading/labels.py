"""A submission's label: its path relative to the folder (or zip) given on the command line, as
text that prints and names it alone.

The label is what the gradebook's ``submission`` column holds, what ``--resume``, the shards and
the feedback file's name are keyed on, and where the student is read from (``students.py``), so
it is the same in every run and no two files share one. A file name may hold any byte but ``/``
and NUL; the label writes each one that would not show as itself as an escape, and a backslash
as two, so that no plain name equals another's escape:

- a byte that is not UTF-8 (the file system allows it): ``\\xff``;
- a character that does not print (a control character, a bidi override, a zero-width space,
  a non-breaking space): ``\\u202e`` (``\\U0001d173`` beyond U+FFFF);
- a backslash: ``\\\\``.

A path found under two of the folders given (the same ``alice/02.ipynb`` in two sections)
gets the folder's place on the command line before ``.ipynb``: ``alice/02\\(2).ipynb``
(``\\(`` is no escape of a name). No label holds the path of the folder given.
"""

from __future__ import annotations

from collections import Counter


def escaped(name: str) -> str:
    """``name`` (from ``os.fsdecode``: a byte that is not UTF-8 is a lone surrogate) with every
    character that would not show as itself escaped, one way back (see the module docstring)."""
    if name.isprintable() and "\\" not in name:
        return name
    out = []
    for ch in name:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's escape of a byte that is not UTF-8
            out.append(f"\\x{code - 0xDC00:02x}")
        elif ch == "\\":
            out.append("\\\\")
        elif not ch.isprintable():
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(ch)
    return "".join(out)


def labels(found: list[tuple[str, int]]) -> list[str]:
    """The label of each (path relative to its folder, the folder's place among those given),
    in order: :func:`escaped`, and where a path is found under two folders, tagged with the
    folder's place (from 1)."""
    counts = Counter(rel for rel, _ in found)
    out = []
    for rel, place in found:
        label = escaped(rel)
        if counts[rel] > 1:
            tag = f"\\({place + 1})"
            ipynb = label.endswith(".ipynb")
            label = label[:-6] + tag + ".ipynb" if ipynb else label + tag
        out.append(label)
    return out
