"""Find the faulty part of a module built from other exercises' parts, and carry it forward
(judge side; ``run/parts.py`` runs the module again with its parts replaced).

When the learner's output fails but the output with the parts replaced passes, the fault lies
in those parts, which are graded on their own: a :class:`PartFault` names them, and
``evaluate`` carries the error forward (full points) unless grading runs with
``--no-carry-forward``. :func:`flow_fault` names a wrong step of a block from its children's
recorded calls (run/parts.py's ``traced``).
"""

from __future__ import annotations

import torch

from .framework import Fail, close
from .run.parts import PARTS_KEY


def flow_fault(flow: dict, x, out, steps, hint: str = "") -> Fail | None:
    """The first of ``steps`` [(tensor, its value from the others, words, code)] that does not
    hold between the block's input ``x``, its ``out`` and its children's recorded calls."""
    v = {"x": x.double(), "out": out.double()}
    for key, n in flow.items():
        if key.endswith(".calls") and n != 1:
            name = key.removesuffix(".calls")
            return Fail(
                f"self.{name} is called {n} times in forward, expected once: {hint}.",
                "part_not_called_once",
            )
        if isinstance(n, torch.Tensor):
            v[key] = n.double()
    for key, value, words, code in steps:
        want = value(v)
        if key not in v or v[key].shape != want.shape or not close(v[key], want, 1e-4, 1e-3):
            got, expected = (_as_sum(v, key, t) for t in (v.get(key), want))
            if got is not None and expected is not None and got != expected:
                words += f" Yours is {_sum_words(got)}, not {_sum_words(expected)}: " + "; ".join(
                    _term_words(k, got.get(k, 0), n) for k, n in expected.items() | got.items()
                    if got.get(k, 0) != expected.get(k, 0)
                ) + "."  # fmt: skip
            return Fail(words, code)
    return None


def _as_sum(v: dict, key: str, target) -> dict[str, int] | None:
    """``target`` as a sum of the block's input and its children's outputs (recorded before
    ``key``) with small whole coefficients, when it is one: {"x": 1, "ffn.out": 1}."""
    names = [k for k in v if k == "x" or (k.endswith(".out") and k != key)]
    names = [k for k in names if target is not None and v[k].shape == target.shape]
    if not names:
        return None
    basis = torch.stack([v[k].flatten() for k in names], 1)
    coef = torch.linalg.lstsq(basis, target.flatten()[:, None]).solution[:, 0]
    whole = coef.round()
    if (coef - whole).abs().max() > 1e-3 or not close(basis @ whole, target.flatten(), 1e-4, 1e-3):
        return None
    return {k: int(c) for k, c in zip(names, whole.tolist()) if c}


def _term(key: str) -> str:
    return "x" if key == "x" else f"{key.removesuffix('.out')}(...)"


def _sum_words(terms: dict[str, int]) -> str:
    factor = {1: "", -1: "-"}
    text = " + ".join(f"{factor.get(n, n)}{_term(k)}" for k, n in terms.items())
    return text.replace("+ -", "- ") or "0"


def _term_words(key: str, got: int, want: int) -> str:
    what = "the block's input x" if key == "x" else f"{_term(key)}'s output"
    if not got:
        return f"the residual sum leaves out {what}"
    if got < 0:
        return f"{what} is subtracted"
    return f"{what} is added {got} times" if want else f"{what} is added where it should not be"


class PartsMixin:
    """A judge that unwraps the output of a module run with its parts replaced (run/parts.py):
    the exercise writes ``judge_value(probe, value)``."""

    def judge(self, probe, out):
        if not (isinstance(out, dict) and out.get(PARTS_KEY) is True):
            return self.judge_value(probe, out)
        try:
            return self.judge_value(probe, out["out"])
        except Fail as fail:
            raise locate(self, probe, out, fail) from None


def _passes(ex, probe, value) -> bool:
    try:
        ex.judge_value(probe, value)
    except Fail:
        return False
    return True


class PartFault(Fail):
    """The module is right once the learner's ``parts`` (exercise ids) are replaced."""

    def __init__(self, message: str, parts: list[str]):
        super().__init__(message, "faulty_part")
        self.parts = parts


def locate(ex, probe, out: dict, fail: Fail) -> Fail:
    swaps, parts = out["swaps"], out["parts"]
    if not _passes(ex, probe, swaps["*"]):
        return fail  # the fault is (also) in the module itself
    alone = [p for p in parts if p in swaps and _passes(ex, probe, swaps[p])]
    culprits = alone[:1] or parts
    names = " and ".join(p.split(".", 1)[1] for p in culprits)
    see = ", ".join(culprits)
    return PartFault(
        f"your {ex.id.split('.', 1)[1]} is right; the difference comes from your {names} "
        f"(see {see}): with it replaced by the reference, this case passes.",
        culprits,
    )
