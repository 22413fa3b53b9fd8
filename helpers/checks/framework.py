"""The check framework: probes run the learner's code, judges compare with references.

Every exercise is an :class:`Exercise` subclass split in three so that the grader can run
the untrusted half in the learner's kernel and the trusted half in its own process:

    probes(gen) -> list[Probe]   inputs, made on the CPU from a seeded generator
    run_probe(ex, probe, ...)    executes the learner's object on one probe (run/runner.py,
                                 the kernel side: the runner named by ``probe.runner``)
    judge(probe, out)            raises Fail with a message that names the mistake

An exercise is a class decorated with :func:`register`, in its own file
``helpers/checks/exercises/NN/<name>.py`` for the id ``NN.name`` (checked questions are data:
questions.py).

``check()`` (in ``helpers.checks``) does all three in one process.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import torch

from .run.calling import Probe, Unsupported, plain  # noqa: F401 (the judge's names for them)

#: every exercise id -> its Exercise, filled by :func:`register` as the exercise modules load
REGISTRY: dict[str, Exercise] = {}
#: the diagnoses :func:`expect_close` asks before its generic message, in order: the package
#: (checks/__init__.py) lists properties.diagnose here (the framework imports nothing from the
#: rest of checks/)
DIAGNOSES: list[Callable[..., Fail | None]] = []


class Fail(Exception):
    """The candidate's answer is wrong; the message says how, in words a learner can act on.

    ``code`` optionally names the mistake with a short slug (e.g. "no_scale"), so that a
    gradebook can count how many learners made it.
    """

    def __init__(self, message: str = "", code: str | None = None, figure: tuple | None = None):
        super().__init__(message)
        self.code = code
        self.figure = figure  # (expected, got): drawn inline (show_figure), never graded


@dataclass
class CheckResult:
    exercise: str
    passed: bool
    points: float
    max_points: float
    messages: list[str]
    status: str = "passed"  # passed, failed, error (raised), missing (not implemented yet)
    mistake: str = ""  # "<exercise id>/<slug>" when the failure names a known mistake
    figure: tuple | None = field(default=None, repr=False)  # (expected, got), inline only
    axes: tuple[str, ...] = field(default=(), repr=False)  # the figure's (x, y) labels
    line: str = field(default="", repr=False)  # the learner's line where one change passes
    fix: str = field(default="", repr=False)  # that change (edits/localise.py)

    def __repr__(self) -> str:
        mark = "✅" if self.passed else "❌"
        return f"<CheckResult {mark} {self.exercise}: {self.points:g}/{self.max_points:g} points>"


class Exercise:
    """Base class: subclasses set the metadata and write ``probes`` and ``judge``."""

    id: str = ""
    title: str = ""
    points: float = 1.0
    # dotted names of built-ins switched off while the candidate runs
    forbid: tuple[str, ...] = ()
    # what the learner's object is: "function" or "module" (informs messages and grading)
    kind: str = "function"
    # grading hook (helpers.grading): the name, in the learner's kernel, of the object the
    # instructor's grader runs; None = the name after the dot in the id. A training exercise
    # sets it to its trained model's variable (e.g. "model") and overrides grading_probes.
    grade_target: str | None = None
    # a module built from other exercises' parts (run/parts.py): ((submodule name pattern, the
    # part's exercise id), ...), each replaced by a stand-in to find the faulty one; functions
    # its forward calls by their global name (exercise ids); children whose calls are recorded
    parts: tuple[tuple[str, str], ...] = ()
    function_parts: tuple[str, ...] = ()
    traced: tuple[str, ...] = ()
    # the (x, y) labels of the inline figure of a failed check (a mask: ("key", "query"))
    axes: tuple[str, ...] = ()
    # its known mistakes, its part of exercises/NN/catalogue.py (code -> mistakes.Mistake, set
    # as the package loads), and the float64 reference whose edits are their wrong programs
    mistakes: dict = {}
    reference64: Callable | None = None
    # where the learner's function has another form than reference64 (it scales p.grad in
    # place, say): a function that makes a learner's function of reference64 or of one of its
    # wrong programs (the generated tests run it through check())
    learner: Callable | None = None
    # what the text of an exception the candidate raised says of its mistake: (words, message,
    # code) rows; the first whose words all appear in the error (any case) is the Fail
    errors: tuple[tuple[tuple[str, ...], str, str], ...] = ()
    # the module contract beyond the output (checks/contract.py): the train/eval mode a method
    # or a function leaves a module in, {a method's name or the argument's: "kept" (as it found
    # it) or "train"}; the type of what it returns, {"" (the value) or a key of the runner's
    # dict ("step"): the Python types the text states, (float,) or (int,)}
    modes: dict[str, str] = {}
    returns: dict[str, tuple[type, ...]] = {}

    def grading_probes(self, gen: torch.Generator) -> Iterable[Probe]:
        """Probes for ``python -m helpers grade`` (made from the grader's secret seed).

        Default: the inline check's probes. A training exercise returns probes with a runner of
        its own (e.g. "predict", run/loops.py: held-out inputs fed to the learner's trained
        model) and its ``judge`` compares the predictions with a threshold.
        """
        return self.probes(gen)

    @property
    def notebook(self) -> str:
        return self.id.split(".", 1)[0]

    def probes(self, gen: torch.Generator) -> Iterable[Probe]:
        raise NotImplementedError

    def judge(self, probe: Probe, out: Any) -> None:
        raise NotImplementedError

    def fail(self, code: str, **fields) -> Fail:
        """The :class:`Fail` of the catalogued mistake ``code``, its message filled in."""
        return Fail(self.mistakes[code].say(**fields), code)

    def explain_error(self, probe: Probe, error: str) -> Fail | None:
        """A :class:`Fail` that names the mistake behind an exception the candidate raised
        (``error`` is the runner's message, with the learner's line), or None to report it
        as it is: by default the first row of :attr:`errors` whose words the error holds."""
        return error_fail(self.errors, error)

    def __repr__(self) -> str:
        return f"<Exercise {self.id}: {self.title} ({self.points:g} points)>"


def error_fail(rows, error: str) -> Fail | None:
    """The Fail of the first ``(words, message, code)`` row whose words all appear in
    ``error`` (any case): the message, then the error as the runner said it."""
    for words, message, code in rows:
        if all(w.lower() in error.lower() for w in words):
            return Fail(f"{message}\n   {error}", code)
    return None


def register(cls: type[Exercise]) -> type[Exercise]:
    """Class decorator: an exercise's checks, registered under its ``id`` (timm's
    ``@register_model``)."""
    add(cls())
    return cls


def add(ex: Exercise) -> Exercise:
    """``ex`` in the registry under its ``id``, which no other exercise has."""
    if not ex.id or ex.id in REGISTRY:
        raise ValueError(f"exercise id {ex.id!r} is empty or defined twice")
    REGISTRY[ex.id] = ex
    return ex


# --------------------------------------------------------------------------- inputs


def randn(*shape: int, generator: torch.Generator, dtype=torch.float32) -> torch.Tensor:
    """Standard normal numbers from the check's seeded CPU generator (the signature of
    ``helpers.randn``; drawn in float64 and cast, so the cases do not depend on ``dtype``)."""
    return torch.randn(*shape, generator=generator, dtype=torch.float64).to(dtype)


def randint(gen: torch.Generator, low: int, high: int, *shape: int) -> torch.Tensor:
    return torch.randint(low, high, shape, generator=gen)


def rand_bool(gen: torch.Generator, *shape: int, p: float = 0.5) -> torch.Tensor:
    return torch.rand(*shape, generator=gen) < p


def fmt_shape(shape) -> str:
    return str(tuple(int(s) for s in shape))


# --------------------------------------------------------------------------- judging helpers


def expect_tensor(out: Any, what: str = "the output") -> torch.Tensor:
    if isinstance(out, Unsupported):
        raise Fail(f"{what} should be a torch.Tensor, got {out.type_name}.", "not_a_tensor")
    if not isinstance(out, torch.Tensor):
        hint = ""
        if isinstance(out, tuple):
            hint = f" (a tuple of {len(out)}: return only the tensor)"
        elif out is None:
            hint = " (did you forget `return`?)"
        code = "no_return" if out is None else "not_a_tensor"
        raise Fail(f"{what} should be a torch.Tensor, got {type(out).__name__}{hint}.", code)
    return out


def expect_tuple(out: Any, n: int, names: str) -> tuple:
    if isinstance(out, list):
        out = tuple(out)
    if not isinstance(out, tuple) or len(out) != n:
        got = f"a tuple of {len(out)}" if isinstance(out, tuple) else type(out).__name__
        if out is None:
            got = "None (did you forget `return`?)"
        raise Fail(f"should return a tuple {names}, got {got}.", "not_a_tuple")
    return out


def expect_like(
    t: torch.Tensor,
    shape,
    dtype: torch.dtype,
    what: str = "the output",
    dtype_hint: str = "keep the input's dtype",
) -> None:
    """Shape and dtype; device is checked by the runner (outputs come back to the CPU)."""
    if tuple(t.shape) != tuple(shape):
        raise Fail(
            f"{what} {agree(what, 'has')} shape {fmt_shape(t.shape)}, expected {fmt_shape(shape)}.",
            "wrong_shape",
        )
    if t.dtype != dtype:
        raise Fail(
            f"{what} {agree(what, 'has')} dtype {t.dtype}, expected {dtype} ({dtype_hint}).",
            "wrong_dtype",
        )


def expect_finite(t: torch.Tensor, what: str = "the output", hint: str = "") -> None:
    if t.is_floating_point() and not torch.isfinite(t).all():
        bad = "NaN" if torch.isnan(t).any() else "inf"
        raise Fail(
            f"{what} {agree(what, 'contains')} {bad}." + (f" {hint}" if hint else ""), "not_finite"
        )


def tolerances(dtype: torch.dtype) -> tuple[float, float]:
    """(atol, rtol) for comparing against a float64 reference."""
    return (1e-10, 1e-8) if dtype == torch.float64 else (1e-5, 1e-4)


#: how many times the rounding bound (``rounding`` of :func:`expect_close`) a correct float32
#: answer may differ by, on top of the fixed tolerances. Measured: float32 attention needed at
#: most 0.8 times the autograd form of the bound (which references.attention_rounding64 never
#: undercuts), over 2,400 random cases with scores up to about 4,000.
ROUNDING_FACTOR = 4.0


def close(
    a: torch.Tensor, b: torch.Tensor, atol: float, rtol: float, rounding: torch.Tensor | None = None
) -> bool:
    """|a - b| <= atol + rtol |b| (+ ROUNDING_FACTOR x ``rounding``: per element, what float32
    rounding may change in the answer, for an ill-conditioned case)."""
    if a.shape != b.shape:
        return False
    a, b = a.double(), b.double()
    # NaN where the reference has NaN counts as equal (fully masked rows, for instance)
    both_nan = torch.isnan(a) & torch.isnan(b)
    if rounding is None:
        ok = torch.isclose(a, b, atol=atol, rtol=rtol)
    else:
        allowed = atol + rtol * b.abs() + ROUNDING_FACTOR * rounding.double()
        ok = (a == b) | ((a - b).abs() <= allowed)
    return bool((ok | both_nan).all())


# --------------------------------------------------------------------------- confirming a cause

#: while a named mistake is confirmed on the other cases (checks/__init__.py's ``confirm``): one
#: dict per case, code -> what its variants showed there ("reproduced", "refuted")
OBSERVED: list[dict[str, set[str]]] = []
#: mistake codes left out of the tables while another explanation is looked for (a cause the
#: other cases refuted)
SUPPRESSED: set[str] = set()


def observe(mistakes: Iterable[tuple], reproduces: Callable, is_ref: Callable, got_is_ref: bool):
    """While confirming: for each coded variant of ``mistakes`` on this case, whether it gives the
    learner's output ("reproduced", where it differs from the reference) or not ("refuted": the
    learner's output is wrong here, and not what the variant gives). A case the learner passes
    says nothing: a table's variant may stand for a slip only where the case's settings reach
    it (a tanh GELU on a relu case)."""
    if not OBSERVED:
        return
    here: dict[str, set[str]] = {}  # one code's variants (a list, or on q and on k) count as one
    for variant, _message, *slug in mistakes:
        if not slug or not slug[0]:
            continue
        try:
            v = variant() if callable(variant) else variant
            if v is None:
                continue
            same, at_ref = reproduces(v), is_ref(v)
        except Exception:  # a variant that does not apply to this case
            continue
        if same and not at_ref:
            here.setdefault(slug[0], set()).add("reproduced")
        elif not same and not got_is_ref:  # the learner's slip shows here, this one's not
            here.setdefault(slug[0], set()).add("refuted")
    for code, found in here.items():
        OBSERVED[-1].setdefault(code, set()).update(found)


#: a learner's float output this many times nearer a variant than the reference is that
#: variant's, rounding apart (float32 sines of angles in the thousands: a case's float64
#: variant is not the learner's float32 to 1e-3, and the slip is still the same)
NEARER = 0.05


def nearer(got: torch.Tensor, v: torch.Tensor, ref: torch.Tensor) -> bool:
    if not got.is_floating_point() or got.shape != v.shape or got.shape != ref.shape:
        return False
    g = got.double()
    to_v = (g - v.double()).abs().nan_to_num(nan=math.inf).max()
    to_ref = (g - ref.double()).abs().nan_to_num(nan=math.inf).max()
    return bool(to_v <= NEARER * to_ref)


def _unsuppressed(mistakes: Iterable[tuple]) -> list[tuple]:
    return [m for m in mistakes if not (len(m) > 2 and m[2] in SUPPRESSED)]


def expect_close(
    got: torch.Tensor,
    ref: torch.Tensor,
    what: str = "the output",
    *,
    atol: float | None = None,
    rtol: float | None = None,
    mistakes: Iterable[tuple] = (),
    explain: Callable[[torch.Tensor], Fail | None] | None = None,
    rounding: torch.Tensor | None = None,
    **properties,
) -> None:
    """Pass if ``got`` matches ``ref``; else name the first known mistake it matches, else the
    property it breaks (``properties``: the keywords of :func:`properties.diagnose`), else
    what ``explain(got)`` finds (an exercise's own properties: which step is wrong).

    ``mistakes`` holds ``(variant, message)`` or ``(variant, message, slug)``: a wrong variant
    (a tensor, or a function that makes it), the message to show when the candidate matches
    that variant, and optionally the mistake's short code (``Fail.code``). ``rounding``: what
    float32 rounding may change in each element (references.attention_rounding64, say), for cases
    whose float32 answer is far from the float64 reference however it is computed.
    """
    d_atol, d_rtol = tolerances(got.dtype)
    atol = d_atol if atol is None else atol
    rtol = d_rtol if rtol is None else rtol
    mistakes = _unsuppressed(mistakes)
    right = close(got, ref.to(got.dtype) if got.is_floating_point() else ref, atol, rtol, rounding)
    observe(
        mistakes,
        lambda v: (
            close(got, v.to(got.dtype), max(atol, 1e-4), max(rtol, 1e-3)) or nearer(got, v, ref)
        ),
        lambda v: close(v.to(got.dtype), ref.to(got.dtype), atol, rtol, rounding),
        right,
    )
    if right:
        return
    for variant, message, *slug in mistakes:
        try:
            v = variant() if callable(variant) else variant
        except Exception:  # a variant that does not apply to this case
            continue
        if v is None or close(v.to(got.dtype), ref.to(got.dtype), atol, rtol, rounding):
            continue  # the mistake changes nothing here: an answer near it is near the reference
        if close(got, v.to(got.dtype), max(atol, 1e-4), max(rtol, 1e-3)):
            raise Fail(message, slug[0] if slug else None)
    found = next(filter(None, (d(got, ref, what, **properties) for d in DIAGNOSES)), None)
    found = found or (explain(got) if explain else None)
    if found:
        found.figure = (ref, got)
        raise found
    raise Fail(describe_difference(got, ref, what), figure=(ref, got))


#: (message, code) of a module whose eval-mode output changes from call to call
DROPOUT_IN_EVAL = (
    "in eval mode (module.eval()) two calls on the same input give different outputs: a "
    "dropout is still active. Use nn.Dropout modules (eval() switches them off), or "
    "F.dropout(x, p, training=self.training).",
    "dropout_in_eval",
)


def plural(what: str) -> bool:
    """Whether ``what`` takes a plural verb: "the outputs do", "the table does"."""
    noun = what.removeprefix("the ").split(" ")[0].split(",")[0]
    return noun.endswith("s") and not noun.endswith("ss")


PLURALS = {"is": "are", "has": "have", "does": "do", "contains": "contain", "holds": "hold"}


def agree(what: str, verb: str) -> str:
    """``verb`` ("is", "has", ...) agreeing with ``what``: agree("the outputs", "does") = "do"."""
    return PLURALS[verb] if plural(what) else verb


def slips(codes: Iterable[str], messages: dict[str, str], most: int | None = None) -> str:
    """What each mistake of ``codes`` is (its message up to the first ": ", before the fix),
    joined with "; or ": a case that several known mistakes explain alike names none of them."""
    return "; or ".join(messages[c].split(": ")[0] for c in list(dict.fromkeys(codes))[:most])


def named(messages: dict[str, str], fields: dict | None = None, **variants) -> list[tuple]:
    """Mistakes as data: ``messages`` maps a mistake code to its message (``str.format``ed with
    ``fields``), ``variants`` maps the same code to its wrong variant (a tensor, a function that
    makes it, or a list of them). Returns the ``(variant, message, code)`` table of
    :func:`expect_close` and :func:`expect_equal`, in the order of ``variants``."""
    table = []
    for code, vs in variants.items():
        message = messages[code].format(**fields) if fields else messages[code]
        table += [(v, message, code) for v in (vs if isinstance(vs, list) else [vs])]
    return table


def expect_equal(got: torch.Tensor, ref: torch.Tensor, mistakes, otherwise: str) -> None:
    """Exact outputs (masks): pass if equal; else the first ``(variant, message, code)`` that
    ``got`` equals (a variant: a tensor, or a function that makes it), else ``otherwise``; the
    Fail carries both for the inline figure."""
    mistakes = _unsuppressed(mistakes)
    observe(mistakes, lambda v: torch.equal(got, v), lambda v: torch.equal(v, ref),
            torch.equal(got, ref))  # fmt: skip
    if torch.equal(got, ref):
        return
    for variant, message, code in mistakes:
        try:
            v = variant() if callable(variant) else variant
        except Exception:  # a variant that does not apply to this case
            continue
        if v is not None and torch.equal(got, v):
            raise Fail(message, code, figure=(ref, got))
    raise Fail(otherwise, figure=(ref, got))


def describe_difference(got: torch.Tensor, ref: torch.Tensor, what: str) -> str:
    if got.shape != ref.shape:
        has = agree(what, "has")
        return f"{what} {has} shape {fmt_shape(got.shape)}, expected {fmt_shape(ref.shape)}."
    g, r = got.double(), ref.double()
    if torch.isnan(g).any() and not torch.isnan(r).any():
        return f"{what} {agree(what, 'contains')} NaN where the reference has none."
    err = (g - r).abs().nan_to_num(nan=math.inf)
    idx = tuple(int(i) for i in torch.unravel_index(err.argmax(), err.shape))
    where = f" at index {list(idx)}" if idx else ""
    msg = (
        f"{what} {agree(what, 'does')} not match the reference: "
        f"largest error {err.max().item():.3g}{where} "
        f"(got {g[idx].item():.4g}, expected {r[idx].item():.4g})."
    )
    if got.numel() <= 12:
        msg += f"\n   got:      {fmt_values(g)}\n   expected: {fmt_values(r)}"
    return msg


def fmt_values(t: torch.Tensor) -> str:
    return "[" + ", ".join(f"{v:.4f}" for v in t.flatten().tolist()) + "]"
