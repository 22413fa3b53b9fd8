"""Known mistakes as data: each exercise's catalogue (``exercises/NN/catalogue.py``) writes a
mistake once, as a code, its message and the wrong program that makes it.

A catalogue maps an exercise id to its mistakes, each ``code: {"message": ..., <program>}``:

    "message"   what the learner reads; ``str.format`` fields come from the judge ({d_k})
    "wrong"     the wrong program(s) the judge recomputes on each case to name the mistake, as
                the judge's float64 reference with edits (``"OLD -> NEW"``: the one place the
                reference's source holds OLD, replaced; a tuple of edits applied together), or
                the wrong code itself (a ``def`` of the reference's name); a list of programs
                where one mistake has several forms
    "example"   a wrong program for the generated test only, where the judge tells the mistake
                by its shape, its dtype or its error rather than by its values

:func:`program` builds a program; :func:`variants` makes the table of wrong outputs the judge's
``expect_close`` / ``expect_equal`` compare with, in the catalogue's order (the first that
matches at the check's tolerance is named). tests/checks/test_catalogue.py runs every program
through ``check()`` as a learner's code and asserts its own code.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: an edit: "OLD -> NEW"
ARROW = " -> "


@dataclass(frozen=True)
class Mistake:
    code: str
    message: str
    wrong: tuple = ()  # programs the judge recomputes
    example: tuple = ()  # programs for the generated test only

    def say(self, **fields) -> str:
        return self.message.format(**fields) if fields else self.message


def _programs(spec) -> tuple:
    """One program (a str, or a tuple of edits) or a list of them -> a tuple of programs."""
    return tuple(spec) if isinstance(spec, list) else ((spec,) if spec else ())


def entries(table: dict[str, dict]) -> dict[str, Mistake]:
    """An exercise's part of a catalogue, read: code -> :class:`Mistake`."""
    found = {}
    for code, entry in table.items():
        unknown = set(entry) - {"message", "wrong", "example"}
        if unknown or "message" not in entry:
            raise ValueError(f"mistake {code!r}: a message and no field {sorted(unknown)}")
        wrong, example = _programs(entry.get("wrong")), _programs(entry.get("example"))
        found[code] = Mistake(code, entry["message"], wrong, example)
    return found


_BUILT: dict[tuple, Callable] = {}


def program(reference: Callable, spec) -> Callable:
    """The wrong program ``spec`` made of ``reference`` (a function): its source with the edits
    applied, or the code given, run in the reference's module (built once)."""
    key = (reference, spec)
    if key not in _BUILT:
        whole = isinstance(spec, str) and spec.startswith("def ")
        source = spec if whole else _edited(reference, spec)
        namespace, name = dict(reference.__globals__), f"<wrong {reference.__name__}: {spec}>"
        # its lines where an error names them, as a learner's cell's are
        linecache.cache[name] = (len(source), None, source.splitlines(keepends=True), name)
        exec(compile(source, name, "exec"), namespace)
        _BUILT[key] = namespace[reference.__name__]
    return _BUILT[key]


def _edited(reference: Callable, edits) -> str:
    """The reference's source with the edits applied to its code (its signature and docstring
    are left as they are: a docstring may say what the code says)."""
    source = textwrap.dedent(inspect.getsource(reference))
    fn = ast.parse(source).body[0]
    first = fn.body[0]
    documented = isinstance(first, ast.Expr) and isinstance(getattr(first, "value", None),
                                                             ast.Constant)  # fmt: skip
    cut = (first.end_lineno if documented else first.lineno - 1) or 0
    lines = source.splitlines(keepends=True)
    head, code = "".join(lines[:cut]), "".join(lines[cut:])
    for edit in (edits,) if isinstance(edits, str) else edits:
        old, arrow, new = edit.partition(ARROW)
        if not arrow or code.count(old) != 1:
            raise ValueError(
                f"the edit {edit!r} of {reference.__name__} needs its OLD once in the source"
            )
        code = code.replace(old, new)
    return head + code


def variants(
    mistakes: dict[str, Mistake],
    reference: Callable,
    args: tuple,
    kwargs: dict | None = None,
    *,
    pick: Callable[[Any], Any] = lambda out: out,
    fields: dict | Callable[[Any], dict] | None = None,
    only: Callable[[Any], bool] = lambda out: True,
    codes: tuple[str, ...] | None = None,
) -> list[tuple]:
    """``(variant, message, code)`` for each wrong program of ``mistakes`` (of ``codes`` only,
    in that order, where given), in order: a variant computes ``pick`` of the program's output
    on ``args`` when the judge asks for it; ``only`` keeps the programs whose (whole) output it
    accepts (e.g. that leave the weights right). ``fields`` fill in the messages; a function of
    the program gives each program's own (the base a "10000.0 -> 100.0" edit uses)."""
    kwargs = kwargs or {}
    fill = fields if callable(fields) else lambda spec: fields or {}
    chosen = mistakes.values() if codes is None else [mistakes[c] for c in codes]

    def run(spec):
        out = program(reference, spec)(*args, **kwargs)
        return pick(out) if only(out) else None

    return [
        (lambda spec=spec: run(spec), m.say(**fill(spec)), m.code)
        for m in chosen
        for spec in m.wrong
    ]


def outputs(mistakes: dict[str, Mistake], reference: Callable, args: tuple) -> dict[str, list]:
    """code -> the outputs of its wrong programs on ``args`` (a program that raises on them is
    left out), for the judges that compare exactly (a str, a list of ids)."""
    found: dict[str, list] = {}
    for m in mistakes.values():
        for spec in m.wrong:
            try:
                found.setdefault(m.code, []).append(program(reference, spec)(*args))
            except Exception:  # the mistake does not apply to this case
                continue
    return found
