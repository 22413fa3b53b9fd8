"""Judging in the grader's process: probes from the secret seed, the kernel's results loaded as
plain data, verdicts made with the same code as the inline check (the sources the kernel gets,
and the check that they did not change during a run: ``sources.py``).
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import sys
import warnings
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

import torch

from ...checks import all_probes, evaluate
from ...checks.framework import Exercise, Probe, Unsupported
from ...checks.run.runner import Outcome
from ..limits import DRAWS_MEMORY, DRAWS_SECONDS, JUDGE_MEMORY, MAX_RESULT_BYTES, MAX_TENSOR_BYTES
from ..reading.isolate import IsolatedError, call_limited
from ..reading.submissions import exercise_cell, target_name

# what one exercise's results may hold once loaded: values (a list shared at every level counts
# each time it is reached; the bytes of tensor data: MAX_TENSOR_BYTES)
MAX_RESULT_ITEMS = 200_000
SEED_DOMAIN = "attention-to-vit grading"


#: draws of an exercise's inputs tried before one that the course's own version fails is kept
DRAWS = 8


def exercise_seed(seed: int, exercise_id: str, draw: int = 0) -> int:
    """Seed of one exercise's probes: never the inline check's public seed, whatever --seed is."""
    text = f"{SEED_DOMAIN}:{seed}:{exercise_id}" + (f":{draw}" if draw else "")
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:8], "little") & (2**63 - 1)


def course_version(ex: Exercise) -> Any:
    """The course's own version of ``ex``'s target (helpers.blocks), or None: 00-01's
    functions, the training loop and the trained models have none there."""
    from ... import blocks

    return None if ex.kind == "trained" else getattr(blocks, target_name(ex), None)


#: (exercise id, seed) -> the draw its inputs come from (found once, before workers fork)
_DRAWS: dict[tuple[str, int], int] = {}


def good_draw(ex: Exercise, seed: int) -> int:
    """The first draw of ``ex``'s inputs that the course's own version passes (0 nearly
    always). A check whose tolerance a correct answer misses for some inputs would otherwise
    take the points of every correct answer in the batch, which shares its seed: 02's large
    scores did, for 11 seeds in 3,000, before their rounding bound."""
    key = (ex.id, seed)
    if key not in _DRAWS:
        _DRAWS[key] = _first_passing_draw(ex, seed)
    return _DRAWS[key]


def settle_draws(exercises: list[Exercise], seed: int) -> None:
    """Find the draws of ``exercises`` in a child process and keep them here, where the
    workers forked later find them (a process that forks must not start torch's threads)."""
    todo = [ex for ex in exercises if (ex.id, seed) not in _DRAWS]
    try:
        found = call_limited(
            lambda: {ex.id: _first_passing_draw(ex, seed) for ex in todo},
            memory_bytes=DRAWS_MEMORY,
            seconds=DRAWS_SECONDS,
        )
    except IsolatedError:
        return  # each worker finds them for itself
    if isinstance(found, dict):
        _DRAWS.update({(i, seed): d for i, d in found.items() if isinstance(d, int)})


def _first_passing_draw(ex: Exercise, seed: int) -> int:
    from ...checks.run.runner import run_probe

    reference = course_version(ex)
    if reference is None:
        return 0
    cpu = torch.device("cpu")
    for draw in range(DRAWS):
        probes = _draw(ex, seed, draw)
        if evaluate(ex, ((p, run_probe(ex, p, reference, cpu)) for p in probes)).passed:
            if draw:
                print(
                    f"grader: the course's own {target_name(ex)} failed {ex.id} on the inputs "
                    f"of seed {seed}; graded on draw {draw} instead (a check that misses a "
                    "correct answer: please report it)",
                    file=sys.stderr,
                )
            return draw
    return 0  # a check its own reference never passes: the tests say so, not the grader


def _draw(ex: Exercise, seed: int, draw: int) -> list[Probe]:
    gen = torch.Generator().manual_seed(exercise_seed(seed, ex.id, draw))
    grading = getattr(ex, "grading_probes", None)
    # the modes first, the gradients of the first forward case last (checks/__init__.py)
    return all_probes(ex, grading(gen) if grading else ex.probes(gen))


def make_probes(ex: Exercise, seed: int) -> list[Probe]:
    """``ex``'s inputs for ``seed``: the first draw the course's own version passes."""
    return _draw(ex, seed, good_draw(ex, seed))


def kernel_task(ex: Exercise) -> dict:
    """What the kernel knows of exercise ``ex`` (checks/run/runner.py's Task): its id, the
    built-ins switched off while the learner's object runs, and its parts."""
    fields = ("forbid", "parts", "function_parts", "traced")
    return {"id": ex.id} | {f: tuple(getattr(ex, f)) for f in fields}


def probe_fields(probe: Probe) -> dict:
    """What the kernel needs to run a probe; ``info`` is the judge's, except the method name."""
    info = {"method": probe.info["method"]} if "method" in probe.info else {}
    return {
        "name": probe.name,
        "args": probe.args,
        "kwargs": probe.kwargs,
        "runner": probe.runner,
        "init": probe.init,
        "state": probe.state,
        "cpu_only": probe.cpu_only,
        "info": info,
    }


# ------------------------------------------------------------------------- results from the kernel


class ResultError(Exception):
    pass


def _plain(x: Any, budget: list[int], depth: int = 0) -> Any:
    """Verify that ``x`` is plain data of exact types; turn unsupported markers back.
    ``budget``: [values, tensor bytes] still allowed (shared by every call for one file)."""
    if depth > 8:
        raise ResultError("the results are nested too deeply")
    budget[0] -= 1
    if budget[0] < 0:
        raise ResultError(f"the results hold over {MAX_RESULT_ITEMS:,} values")
    if type(x) is torch.Tensor:
        if (
            x.layout != torch.strided
            or x.is_quantized
            or getattr(x, "is_nested", False)
            or x.device.type != "cpu"
        ):
            raise ResultError("a result tensor is not a plain dense CPU tensor")
        budget[1] -= x.numel() * x.element_size()
        if budget[1] < 0:
            raise ResultError(f"the result tensors hold over {MAX_TENSOR_BYTES / 2**20:.0f} MB")
        return x.detach()
    if x is None or type(x) in (bool, int, float, str):
        return x
    if type(x) in (tuple, list):
        return type(x)(_plain(v, budget, depth + 1) for v in x)
    if type(x) is dict:
        if not all(type(k) is str for k in x):
            raise ResultError("a result dict has keys that are not strings")
        if set(x) == {"__unsupported__"} and type(x["__unsupported__"]) is str:
            return Unsupported(x["__unsupported__"])
        return {k: _plain(v, budget, depth + 1) for k, v in x.items()}
    raise ResultError(f"the results hold a {type(x).__name__}")


def _outcome(item: Any, budget: list[int], depth: int = 0) -> Outcome:
    keys = {"value", "error", *Outcome.FLAGS}
    if type(item) is not dict or set(item) - {"on_cpu"} != keys or (depth and "on_cpu" in item):
        raise ResultError("a result does not have the grader's layout")
    error = item["error"]
    if not (error is None or type(error) is str) or any(
        type(item[flag]) is not bool for flag in Outcome.FLAGS
    ):
        raise ResultError("a result does not have the grader's layout")
    return Outcome(
        value=_plain(item["value"], budget),
        error=error,
        **{flag: item[flag] for flag in Outcome.FLAGS},
        on_cpu=_outcome(item["on_cpu"], budget, 1) if "on_cpu" in item else None,
    )


def open_results(path: str | Path, dir_fd: int | None = None) -> BinaryIO:
    """The results file the kernel wrote, if a regular file (``path`` relative to ``dir_fd``
    when given: no link followed at any component), else ResultError."""
    try:
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        fd = os.open(path, flags, dir_fd=dir_fd)
    except OSError:
        raise ResultError("the kernel wrote no results") from None
    f = os.fdopen(fd, "rb")
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        f.close()
        raise ResultError("the kernel wrote no results")
    return f


def load_results(source: Path | BinaryIO) -> dict:
    """The kernel's answer for one exercise (a path, or a regular file opened by the caller),
    as plain data, or ResultError. Run it in a process under limits (isolate.py): a file of a
    few MB may inflate to GBs in ``torch.load``."""
    f = source if hasattr(source, "read") else open_results(source)
    with f:
        raw = f.read(MAX_RESULT_BYTES + 1)
    if len(raw) > MAX_RESULT_BYTES:
        raise ResultError(f"the results are too large (over {MAX_RESULT_BYTES / 2**20:.0f} MB)")
    try:
        with warnings.catch_warnings():  # a forged file may warn about its pickle protocol
            warnings.simplefilter("ignore")
            data = torch.load(io.BytesIO(raw), weights_only=True, map_location="cpu")
    except Exception as exc:
        if "allocate" in str(exc)[:1000]:  # torch's allocator, over the reader's memory limit
            raise MemoryError from None
        raise ResultError(f"the results file is not plain data ({type(exc).__name__})") from None
    if (
        type(data) is not dict
        or type(data.get("status")) is not str
        or type(data.get("outcomes")) is not list
    ):
        raise ResultError("the results file does not have the grader's layout")
    budget = [MAX_RESULT_ITEMS, MAX_TENSOR_BYTES]
    outcomes = [_outcome(item, budget) for item in data["outcomes"]]
    text = {
        k: data.get(k) if type(data.get(k)) is str else "" for k in ("origin", "error", "reference")
    }
    return {"status": data["status"], "outcomes": outcomes, **text}


class Verdict(NamedTuple):
    """One exercise's row, as judged: status (passed, failed, error, timeout, missing; "cut"
    and "died" for a call run.py tries again), points, message, and the check's code for the
    mistake it recognised ("<id>/<slug>", else empty)."""

    status: str
    points: float
    message: str
    mistake: str = ""


#: problem -> (status, message): every verdict the grader gives where no check judged
PROBLEMS = {
    "check_raised": ("error", "the grader's check raised {error}"),
    "short": ("error", "the kernel returned {got} of {wanted} results."),
    "interrupted": ("timeout", "`{name}` was interrupted on the grader's inputs."),
    "broken": ("error", "not graded: the grader's code failed in the kernel ({error})."),
    "tampered": ("error", "not graded: `{name}` {error}."),
    "layout": ("error", "not graded: the kernel's results do not have the grader's layout."),
    "course_block": ("failed", "`{name}` is the course's reference version from {origin}: "
                     "write your own in the exercise cell."),
    "course_reference": ("failed", "`{name}` runs the course's reference version ({reference}): "
                         "write your own in the exercise cell."),
    "stopped": ("error", "not graded: {stop} before `{name}` was defined."),
    "stopped_timeout": ("timeout", "not graded: {stop} before `{name}` was defined."),
    "cell_raised": ("error", "`{name}` is not defined: its cell ({cell}) raised {error}"),
    "undefined": ("missing", "`{name}` is not defined in the notebook (is its exercise cell "
                  "deleted, or the {what} renamed?)."),
    "unreadable": ("error", "not graded: the kernel's results could not be read ({error})."),
    "cut": ("cut", "{error}"),
    "not_graded": ("error", "not graded: {error}."),
    "died": ("died", "the kernel died while running `{name}` on the grader's inputs."),
    "died_memory": ("died", "the kernel died while running `{name}` on the grader's inputs: "
                    "{memory}."),
    "timeout": ("timeout", "`{name}` did not finish within {seconds:g} s on the grader's inputs "
                "(an endless loop?)."),
}  # fmt: skip


def problem(code: str, **fields) -> Verdict:
    """The :class:`Verdict` of a problem of :data:`PROBLEMS`, its message filled in."""
    status, message = PROBLEMS[code]
    return Verdict(status, 0.0, message.format(**fields))


def judge(
    ex: Exercise, probes: list[Probe], outcomes: list[Outcome], carry_forward: bool = True
) -> Verdict:
    """The verdict on the kernel's outcomes, judged in this process (``mistake``: the check
    framework's ``CheckResult.mistake``)."""
    try:
        result = evaluate(ex, zip(probes, outcomes), carry_forward)
    except Exception as exc:  # a bug in a check, not the learner's fault: say so
        return problem("check_raised", error=f"{type(exc).__name__}: {exc}")
    if result.passed and len(outcomes) < len(probes):
        return problem("short", got=len(outcomes), wanted=len(probes))
    message = "\n".join(result.messages)
    mistake = getattr(result, "mistake", "") or ""
    return Verdict(result.status, float(result.points), message, str(mistake))


def verdict(
    ex: Exercise, probes: list[Probe], data: dict, run, carry_forward: bool = True
) -> Verdict:
    """The row's verdict from the kernel's answer for ``ex``."""
    name, status = target_name(ex), data["status"]
    if status in ("interrupted", "broken", "tampered"):
        return problem(status, name=name, error=data["error"])
    if status == "undefined":
        return undefined(run, ex, name)
    if status != "ran":
        return problem("layout")
    if data["origin"].startswith("helpers.blocks"):
        return problem("course_block", name=name, origin=data["origin"])
    if data["reference"]:
        return problem("course_reference", name=name, reference=data["reference"])
    return judge(ex, probes, data["outcomes"], carry_forward)


def undefined(run, ex: Exercise, name: str) -> Verdict:
    """Why the object is not in the kernel: the notebook stopped, its cell raised, or it is gone."""
    pos = exercise_cell(run.cells, ex)
    if run.stop and (pos is None or pos >= run.stop[0]):
        code = "stopped_timeout" if run.stop[1].status == "timeout" else "stopped"
        return problem(code, stop=run.stop[2], name=name)
    if pos is not None and pos in run.errors:
        cell, error = run.cell_label(pos), run.errors[pos].describe()
        return problem("cell_raised", name=name, cell=cell, error=error)
    return problem("undefined", name=name, what="class" if ex.kind == "module" else "function")


def judge_limited(ex: Exercise, probes: list[Probe], run, out_name: str, settings) -> Verdict:
    """Load the kernel's results and judge them in a child process under limits: a results
    file that inflates, expands or stalls costs its own row, never the grader's memory."""

    def judged():
        try:
            data = load_results(open_results(out_name, run.private_fd))
        except ResultError as exc:
            return list(problem("cut", error=exc))  # not whole: run.py tries a fresh kernel once
        return list(verdict(ex, probes, data, run, settings.carry_forward))

    try:
        status, points, message, mistake = call_limited(
            judged, memory_bytes=JUDGE_MEMORY, seconds=settings.cell_timeout
        )
    except IsolatedError as exc:
        return problem("unreadable", error=exc)
    return Verdict(str(status), float(points), str(message), str(mistake))


def new_private_file(dir_fd: int, name: str):
    """A new file in the grader's private folder, made relative to its descriptor (never
    through a link, never over a file the kernel put there)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    # readable by the kernel, which may run as another user (gradescope.py without bwrap)
    return os.fdopen(os.open(name, flags, 0o644, dir_fd=dir_fd), "wb")
