"""Grade a batch of submitted notebooks: ``python -m helpers grade SUBMISSIONS... --out grades.csv``.

For each submission, in a worker process of its own:

1. copy the notebook (and the plain files beside it) into a fresh temporary folder;
2. start a kernel there under limits (kernel.py) and run the code cells, each under a time
   limit, the whole notebook under another; a timeout or a dead kernel stops the run, and a
   dead kernel is replaced by a fresh one that re-runs the cells before the fatal one;
3. for each exercise of that notebook: make probes from the secret seed *here*, write them to
   a file, have the kernel call the learner's object on them (kernel_side.py, sent as text)
   and save the outcomes; load them with ``torch.load(weights_only=True)``, verify that they
   are plain data, and judge them here with the same code as the inline check.

Nothing the notebook prints or patches is read: only the files the grader asked for, loaded as
plain data and judged by this process. The parent process writes each submission's rows to
the CSV as soon as they arrive.
"""
from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import torch

from ..checks import REGISTRY, evaluate
from ..checks.framework import Exercise, Probe, Unsupported
from ..checks.runner import Outcome
from . import kernel_side
from .kernel import CellRun, Kernel, Zygote

# the parent's kernel zygote (grade_batch makes it before forking workers, which inherit it)
_zygote: Zygote | None = None

COLUMNS = ["submission", "notebook", "exercise", "points", "max_points", "status", "message"]
STATUSES = ("passed", "failed", "error", "timeout", "missing")
MAX_NOTEBOOK_BYTES = 20 * 2**20
MAX_RESULT_BYTES = 256 * 2**20
MAX_SIBLING_BYTES = 50 * 2**20
SEED_DOMAIN = "attention-to-vit grading"


def _read_sources() -> dict[str, tuple[str, str]]:
    """The check framework's sources, read once when the grader starts (sent to kernels)."""
    folder = Path(kernel_side.__file__).resolve().parent.parent / "checks"
    sources = {}
    for path in sorted(folder.glob("*.py")):
        if path.stem in ("framework", "runner") or path.stem.startswith("nb"):
            sources[path.stem] = (str(path), path.read_text(encoding="utf-8"))
    return sources


CHECK_SOURCES = _read_sources()
KERNEL_SIDE_SOURCE = Path(kernel_side.__file__).read_text(encoding="utf-8")


class UsageError(Exception):
    """Bad arguments: the message is shown and the command exits with status 2."""


@dataclass
class Settings:
    cell_timeout: float = 120.0
    total_timeout: float = 600.0
    memory_bytes: int = 4 * 2**30  # memory per kernel process (RLIMIT_DATA, kernel.py); 0 = no limit
    file_bytes: int = 2**30  # largest file a kernel may write (RLIMIT_FSIZE); 0 = no limit
    output_cap: int = 2 * 2**20  # characters of output captured per submission
    threads: int = 1
    seed: int = 0
    device: str = "cpu"
    workdir: str | None = None  # where the temporary folders go (default: the system's)
    preload: bool = True  # fork kernels from a process with torch & co. imported (Linux)


@dataclass
class Row:
    submission: str
    notebook: str
    exercise: str
    points: float
    max_points: float
    status: str
    message: str

    def csv_fields(self) -> list[str]:
        return [_cell(self.submission), self.notebook, self.exercise, f"{self.points:g}",
                f"{self.max_points:g}", self.status, _cell(" | ".join(self.message.splitlines()))]


def _cell(text: str) -> str:
    """Text a spreadsheet would read as a formula gets a leading quote (CSV injection)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


@dataclass
class Submission:
    path: Path
    label: str
    notebook: str | None = None
    problem: str | None = None  # why it cannot be run, when it cannot
    notes: list[str] = field(default_factory=list)


@dataclass
class Graded:
    rows: list[Row]
    notes: list[str] = field(default_factory=list)  # for the feedback file
    messages: dict[str, str] = field(default_factory=dict)  # exercise -> full message
    seconds: float = 0.0
    notebook_seconds: float = 0.0


# --------------------------------------------------------------------------- exercises

def exercises_of(notebook: str | None) -> list[Exercise]:
    """The notebook's exercises in the order their check module defines them."""
    return [ex for ex in REGISTRY.values() if ex.notebook == notebook]


def target_name(ex: Exercise) -> str:
    return getattr(ex, "grade_target", None) or ex.id.split(".", 1)[1]


def exercise_seed(seed: int, exercise_id: str) -> int:
    """Seed of one exercise's probes: never the inline check's public seed, whatever --seed is."""
    digest = hashlib.sha256(f"{SEED_DOMAIN}:{seed}:{exercise_id}".encode()).digest()
    return int.from_bytes(digest[:8], "little") & (2**63 - 1)


def make_probes(ex: Exercise, seed: int) -> list[Probe]:
    gen = torch.Generator().manual_seed(exercise_seed(seed, ex.id))
    grading = getattr(ex, "grading_probes", None)
    return list(grading(gen) if grading else ex.probes(gen))


def probe_fields(probe: Probe) -> dict:
    """What the kernel needs to run a probe; ``info`` is the judge's, except the method name."""
    info = {"method": probe.info["method"]} if "method" in probe.info else {}
    return {"name": probe.name, "args": probe.args, "kwargs": probe.kwargs, "kind": probe.kind,
            "init": probe.init, "state": probe.state, "cpu_only": probe.cpu_only, "info": info}


# --------------------------------------------------------------------------- finding submissions

def find_submissions(paths: list[str | Path]) -> list[Submission]:
    """Files as given, and the ``*.ipynb`` under each folder (checkpoints skipped)."""
    found: list[tuple[Path, str]] = []
    for arg in paths:
        p = Path(arg)
        if p.is_dir():
            nbs = sorted(q for q in p.rglob("*.ipynb")
                         if ".ipynb_checkpoints" not in q.parts and q.is_file())
            if not nbs:
                raise UsageError(f"no .ipynb files under {arg}")
            found += [(q, q.relative_to(p).as_posix()) for q in nbs]
        elif p.is_file():
            found.append((p, p.as_posix()))
        else:
            raise UsageError(f"no such file or folder: {arg}")
    labels = [label for _, label in found]
    subs, seen = [], set()
    for path, label in found:
        if labels.count(label) > 1:  # the same relative name under two folders
            label = path.as_posix()
        if path.resolve() in seen:
            continue
        seen.add(path.resolve())
        subs.append(Submission(path, label))
    return subs


NAME_RE = re.compile(r"^(\d{2})(?:[_\-. ]|$)")


def notebook_from_name(path: Path) -> str | None:
    m = NAME_RE.match(path.name)
    return m.group(1) if m else None


def read_notebook(sub: Submission):
    """Parse the file and set ``sub.notebook`` / ``sub.problem``; return the notebook or None."""
    import nbformat

    sub.notebook = notebook_from_name(sub.path)
    try:
        size = sub.path.stat().st_size
        if size > MAX_NOTEBOOK_BYTES:
            sub.problem = f"the file is too large to grade ({size / 2**20:.0f} MB)."
            return None
        text = sub.path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        sub.problem = f"cannot read the file: {type(exc).__name__}: {exc}"
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        sub.problem = f"not a notebook: the file is not valid JSON ({exc})."
        return None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        sub.problem = "not a notebook: the JSON has no list of cells."
        return None
    try:
        with warnings.catch_warnings():  # missing cell ids and the like: not the grader's business
            warnings.simplefilter("ignore")
            nb = nbformat.reads(text, as_version=4)
        cells = [c for c in nb.cells if c.get("cell_type") == "code"]
        for c in cells:
            if not isinstance(c.get("source"), str):
                raise ValueError("a code cell without source text")
    except Exception as exc:
        sub.problem = f"not a readable notebook: {type(exc).__name__}: {exc}"
        return None
    course = nb.metadata.get("course") if isinstance(nb.metadata, dict) else None
    meta = course.get("notebook") if isinstance(course, dict) else None
    if isinstance(meta, (str, int)) and str(meta).isdigit():
        number = f"{int(meta):02d}"
        if sub.notebook and sub.notebook != number:
            sub.notes.append(f"the file name says notebook {sub.notebook}, its metadata says "
                             f"{number}: graded as notebook {number}.")
        sub.notebook = number
    return nb


def check_gradable(sub: Submission) -> None:
    if sub.problem is None and sub.notebook is None:
        sub.problem = ("cannot tell which notebook of the series this is: no metadata.course.notebook "
                       "and the file name does not start with NN_.")
    elif sub.problem is None and not exercises_of(sub.notebook):
        sub.problem = f"notebook {sub.notebook} has no graded exercises (not a notebook of this series?)."


def problem_rows(sub: Submission, status: str, message: str) -> list[Row]:
    exs = exercises_of(sub.notebook)
    if not exs:
        return [Row(sub.label, sub.notebook or "", "", 0.0, 0.0, status, message)]
    return [Row(sub.label, sub.notebook or "", ex.id, 0.0, ex.points, status, message) for ex in exs]


# --------------------------------------------------------------------------- results from the kernel

class ResultError(Exception):
    pass


def _plain(x: Any, depth: int = 0) -> Any:
    """Verify that ``x`` is plain data of exact types; turn unsupported markers back."""
    if depth > 8:
        raise ResultError("the results are nested too deeply")
    if type(x) is torch.Tensor:
        if x.layout != torch.strided or x.is_quantized or getattr(x, "is_nested", False) \
                or x.device.type != "cpu":
            raise ResultError("a result tensor is not a plain dense CPU tensor")
        return x.detach()
    if x is None or type(x) in (bool, int, float, str):
        return x
    if type(x) in (tuple, list):
        return type(x)(_plain(v, depth + 1) for v in x)
    if type(x) is dict:
        if not all(type(k) is str for k in x):
            raise ResultError("a result dict has keys that are not strings")
        if set(x) == {"__unsupported__"} and type(x["__unsupported__"]) is str:
            return Unsupported(x["__unsupported__"])
        return {k: _plain(v, depth + 1) for k, v in x.items()}
    raise ResultError(f"the results hold a {type(x).__name__}")


def load_results(path: Path) -> dict:
    """The kernel's answer for one exercise, as plain data, or ResultError."""
    if not path.is_file():
        raise ResultError("the kernel wrote no results")
    size = path.stat().st_size
    if size > MAX_RESULT_BYTES:
        raise ResultError(f"the results are too large ({size / 2**20:.0f} MB)")
    try:
        with warnings.catch_warnings():  # a forged file may warn about its pickle protocol
            warnings.simplefilter("ignore")
            data = torch.load(path, weights_only=True, map_location="cpu")
    except Exception as exc:
        raise ResultError(f"the results file is not plain data ({type(exc).__name__})") from None
    if type(data) is not dict or type(data.get("status")) is not str \
            or type(data.get("outcomes")) is not list:
        raise ResultError("the results file does not have the grader's layout")
    outcomes = []
    for item in data["outcomes"]:
        if type(item) is not dict or set(item) != {"value", "error", "missing", "off_device"}:
            raise ResultError("a result does not have the grader's layout")
        error = item["error"]
        if not (error is None or type(error) is str) or type(item["missing"]) is not bool \
                or type(item["off_device"]) is not bool:
            raise ResultError("a result does not have the grader's layout")
        outcomes.append(Outcome(value=_plain(item["value"]), error=error,
                                missing=item["missing"], off_device=item["off_device"]))
    origin = data.get("origin") if type(data.get("origin")) is str else ""
    error = data.get("error") if type(data.get("error")) is str else ""
    return {"status": data["status"], "outcomes": outcomes, "origin": origin, "error": error}


def judge(ex: Exercise, probes: list[Probe], outcomes: list[Outcome]) -> tuple[str, float, str]:
    """(status, points, message) from the kernel's outcomes, judged in this process."""
    try:
        result = evaluate(ex, zip(probes, outcomes))
    except Exception as exc:  # a bug in a check, not the learner's fault: say so
        return "error", 0.0, f"the grader's check raised {type(exc).__name__}: {exc}"
    message = "\n".join(result.messages)
    if result.passed and len(outcomes) < len(probes):
        return "error", 0.0, f"the kernel returned {len(outcomes)} of {len(probes)} results."
    return result.status, float(result.points), message


# --------------------------------------------------------------------------- one submission

def _code_cells(nb) -> list[tuple[int, Any]]:
    return [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.strip()]


def _exercise_cell(cells, ex: Exercise) -> int | None:
    """Position in ``cells`` of the exercise's cell: by metadata, else by its def/class line."""
    for pos, (_, cell) in enumerate(cells):
        course = cell.metadata.get("course")
        if isinstance(course, dict) and course.get("exercise") == ex.id:
            return pos
    pattern = re.compile(rf"^\s*(def|class)\s+{re.escape(target_name(ex))}\b", re.M)
    for pos, (_, cell) in enumerate(cells):
        if pattern.search(cell.source):
            return pos
    return None


def _copy_siblings(src: Path, dest: Path) -> None:
    """The plain files beside the notebook (data a notebook may read), within a size budget."""
    budget = MAX_SIBLING_BYTES
    try:
        entries = sorted(src.iterdir())
    except OSError:
        return
    for entry in entries:
        if entry.suffix == ".ipynb" or entry.is_symlink() or not entry.is_file():
            continue
        size = entry.stat().st_size
        if size > budget:
            continue
        budget -= size
        shutil.copyfile(entry, dest / entry.name)


class _Run:
    """The state of one submission's kernel: which cells ran, where it stopped."""

    def __init__(self, sub: Submission, nb, workdir: Path, settings: Settings,
                 on_kernel: Callable[[int], None]):
        self.sub, self.settings, self.workdir, self.on_kernel = sub, settings, workdir, on_kernel
        self.private = workdir.parent  # the grader's side of the temporary folder
        self.fallback = ""  # why the kernel could not be forked from the zygote
        self.cells = _code_cells(nb)
        self.errors: dict[int, CellRun] = {}  # position -> the error it raised
        self.stop: tuple[int, CellRun, str] | None = None  # position, run, why
        self.kernel: Kernel | None = None
        self.starts = 0
        self.notebook_seconds = 0.0
        self.output_capped = False

    def start(self) -> Kernel:
        self.close()
        self.starts += 1
        s = self.settings
        limits = dict(memory_bytes=s.memory_bytes, file_bytes=s.file_bytes, threads=s.threads,
                      output_cap=s.output_cap)
        self.kernel = None
        if _zygote is not None:
            try:
                self.kernel = Kernel(str(self.workdir), zygote=_zygote, private=str(self.private), **limits)
            except Exception as exc:  # fall back to a kernel of its own
                self.kernel = None
                self.fallback = f"{type(exc).__name__}: {exc}"
        if self.kernel is None:
            self.kernel = Kernel(str(self.workdir), **limits)
        if self.kernel.pid:
            self.on_kernel(self.kernel.pid)
        return self.kernel

    def close(self) -> None:
        if self.kernel is not None:
            self.output_capped |= self.kernel.output_capped
            self.kernel.close()
            self.kernel = None

    def cell_label(self, pos: int) -> str:
        return f"cell {self.cells[pos][0] + 1}"

    def execute(self) -> None:
        """Run the learner's cells until the end, a timeout or a dead kernel."""
        s = self.settings
        kernel = self.start()
        start = time.monotonic()
        deadline = start + s.total_timeout
        for pos, (_, cell) in enumerate(self.cells):
            remaining = deadline - time.monotonic()
            limit = min(s.cell_timeout, remaining)
            run = kernel.run(cell.source, limit) if remaining > 0 else CellRun("timeout", alive=True)
            if run.status == "error":
                self.errors[pos] = run
            elif run.status == "timeout":
                why = (f"the notebook ran over its time limit of {s.total_timeout:g} s"
                       if limit < s.cell_timeout else
                       f"{self.cell_label(pos)} ran over the time limit of {s.cell_timeout:g} s per cell")
                self.stop = (pos, run, why)
                break
            elif run.status == "died":
                self.stop = (pos, run, f"the kernel died in {self.cell_label(pos)} (os._exit, a crash, "
                                       "or out of memory)")
                break
        self.notebook_seconds = time.monotonic() - start
        if not kernel.alive():
            self.replay()

    def replay(self) -> bool:
        """A fresh kernel that re-runs the cells before the fatal one (once, within limits)."""
        if self.starts >= 3:
            self.close()
            return False
        end = self.stop[0] if self.stop else len(self.cells)
        kernel = self.start()
        deadline = time.monotonic() + self.settings.total_timeout
        for pos in range(end):
            remaining = deadline - time.monotonic()
            run = kernel.run(self.cells[pos][1].source, min(self.settings.cell_timeout, remaining)) \
                if remaining > 0 else CellRun("timeout")
            if run.status in ("timeout", "died"):
                self.close()
                return False
        return True

    def usable(self) -> bool:
        if self.kernel is not None and self.kernel.alive():
            return True
        return self.replay()


def grade_submission(sub: Submission, settings: Settings, nb=None,
                     on_kernel: Callable[[int], None] = lambda pid: None) -> Graded:
    """Run one submission and judge its exercises (the worker's job); ``nb`` if already read."""
    started = time.monotonic()
    if nb is None:
        nb = read_notebook(sub)
    check_gradable(sub)
    if sub.problem:
        return Graded(problem_rows(sub, "error", sub.problem), notes=list(sub.notes))
    base = Path(tempfile.mkdtemp(prefix="grade-", dir=settings.workdir))
    try:
        work = base / "work"
        work.mkdir()
        _copy_siblings(sub.path.parent, work)
        (work / sub.path.name).write_bytes(sub.path.read_bytes())
        private = Path(tempfile.mkdtemp(prefix=".grader-", dir=work))
        run = _Run(sub, nb, work, settings, on_kernel)
        try:
            graded = _grade_in_kernel(sub, run, private, settings)
        finally:
            run.close()
        graded.notebook_seconds = run.notebook_seconds
        if run.fallback:
            graded.notes.append(f"(grader) the kernel was started as a new process: {run.fallback}")
        if run.output_capped:
            graded.notes.append(f"the notebook printed more than {settings.output_cap:,} characters; "
                                "the output was not kept (it is not graded).")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    graded.notes[:0] = sub.notes
    graded.seconds = time.monotonic() - started
    return graded


def _bootstrap_code(token: str, notebook: str | None = None) -> tuple[str, str]:
    """Two cells: free what the last exception holds, then set the grader up in the kernel."""
    import base64

    payload = base64.b64encode(KERNEL_SIDE_SOURCE.encode()).decode()
    sources = base64.b64encode(json.dumps(CHECK_SOURCES).encode()).decode()
    name = f"_course_grader_{token}"
    # IPython keeps the last exception's frames (sys.last_*, its traceback formatter, the last
    # execution result): after a MemoryError they still hold the memory, so let them go first
    release = (f"def {name}_release():\n"
               "    import sys, gc\n"
               "    held = getattr(sys, 'last_value', None) is not None\n"
               "    for a in ('last_type', 'last_value', 'last_traceback', 'last_exc'):\n"
               "        setattr(sys, a, None)\n"
               "    try:\n"
               "        ip = __import__('IPython').get_ipython()\n"
               "        ip.InteractiveTB.tb = None\n"
               "        ip._last_traceback = None\n"
               "        ip.last_execution_result = None\n"
               "    except Exception:\n"
               "        pass\n"
               "    if held:\n"
               "        gc.collect()\n"
               f"{name}_release()\n")
    return release, (f"{name} = {{'__name__': '__course_grader__'}}\n"
            f"__import__('builtins').exec(__import__('base64').b64decode('{payload}').decode(), {name})\n"
            f"{name}['setup']({{k: tuple(v) for k, v in __import__('json').loads("
            f"__import__('base64').b64decode('{sources}').decode()).items()}}, "
            f"notebooks={[notebook] if notebook else None!r})\n")


def _grade_in_kernel(sub: Submission, run: _Run, private: Path, settings: Settings) -> Graded:
    graded = Graded(rows=[])
    try:
        run.execute()
    except Exception as exc:  # the kernel did not start: the grader's environment
        for row in problem_rows(sub, "error", f"the kernel could not start: {type(exc).__name__}: {exc}"):
            graded.rows.append(row)
        return graded
    for pos, err in sorted(run.errors.items()):
        graded.notes.append(f"{run.cell_label(pos)} raised {err.describe()}")
    if run.stop:
        graded.notes.append(run.stop[2] + "; the cells after it were not run.")

    token = os.urandom(6).hex()
    ready_kernel = None
    for i, ex in enumerate(exercises_of(sub.notebook)):
        name = target_name(ex)

        def row(status, points=0.0, message="", _ex=ex):
            graded.messages[_ex.id] = message
            graded.rows.append(Row(sub.label, sub.notebook, _ex.id, points, _ex.points, status, message))

        if not run.usable():
            row("error", message="not graded: the kernel could not be restarted after it died.")
            continue
        if ready_kernel is not run.kernel:
            release, setup = _bootstrap_code(token, sub.notebook)
            run.kernel.run(release, settings.cell_timeout)
            boot = run.kernel.run(setup, settings.cell_timeout)
            if boot.status != "ok":
                row("error", message=f"not graded: the grader could not set up in the kernel "
                                     f"({boot.describe()}).")
                continue
            ready_kernel = run.kernel
        probes = make_probes(ex, settings.seed)
        probes_path, out_path = private / f"probes-{i}.pt", private / f"results-{i}-{run.starts}.pt"
        torch.save([probe_fields(p) for p in probes], probes_path)
        call = (f"_course_grader_{token}['grade']({ex.id!r}, {name!r}, {str(probes_path)!r}, "
                f"{str(out_path)!r}, {settings.device!r}, (lambda: None).__globals__)")
        result = run.kernel.run(call, settings.cell_timeout)
        if result.status == "died":
            row("error", message=f"the kernel died while running `{name}` on the grader's inputs.")
            continue
        if result.status == "timeout":
            row("timeout", message=f"`{name}` did not finish within {settings.cell_timeout:g} s on "
                                   "the grader's inputs (an endless loop?).")
            continue
        try:
            data = load_results(out_path)
        except ResultError as exc:
            row("error", message=f"not graded: {exc}.")
            continue
        status = data["status"]
        if status == "interrupted":
            row("timeout", message=f"`{name}` was interrupted on the grader's inputs.")
        elif status == "broken":
            row("error", message=f"not graded: the grader's code failed in the kernel ({data['error']}).")
        elif status == "unknown":
            row("error", message=f"not graded: the kernel does not know exercise {ex.id} "
                                 f"({data['error'] or 'not registered'}).")
        elif status == "undefined":
            row(*_undefined(run, ex, name))
        elif status != "ran":
            row("error", message="not graded: the kernel's results do not have the grader's layout.")
        elif data["origin"].startswith("helpers.blocks"):
            row("failed", message=f"`{name}` is the course's reference version from {data['origin']}: "
                                  "write your own in the exercise cell.")
        else:
            verdict, points, message = judge(ex, probes, data["outcomes"])
            row(verdict, points, message)
    return graded


def _undefined(run: _Run, ex: Exercise, name: str) -> tuple[str, float, str]:
    pos = _exercise_cell(run.cells, ex)
    if run.stop and (pos is None or pos >= run.stop[0]):
        status = "timeout" if run.stop[1].status == "timeout" else "error"
        return status, 0.0, f"not graded: {run.stop[2]} before `{name}` was defined."
    if pos is not None and pos in run.errors:
        return "error", 0.0, (f"`{name}` is not defined: its cell ({run.cell_label(pos)}) raised "
                              f"{run.errors[pos].describe()}")
    what = "class" if ex.kind == "module" else "function"
    return "missing", 0.0, (f"`{name}` is not defined in the notebook (is its exercise cell deleted, "
                            f"or the {what} renamed?).")


# --------------------------------------------------------------------------- the batch

def row_from_csv(fields: list[str]) -> Row | None:
    if len(fields) != len(COLUMNS):
        return None
    try:
        return Row(fields[0], fields[1], fields[2], float(fields[3]), float(fields[4]), fields[5], fields[6])
    except ValueError:
        return None


def read_gradebook(path: Path) -> list[Row]:
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header != COLUMNS:
            raise UsageError(f"{path} is not a gradebook written by this command (header {header})")
        return [r for r in (row_from_csv(fields) for fields in reader) if r is not None]


@dataclass
class BatchResult:
    rows: list[Row]
    submissions: int
    graded_now: int
    seconds: float
    worker_seconds: list[float] = field(default_factory=list)  # per submission graded now
    notebook_seconds: list[float] = field(default_factory=list)  # executing the learner's cells


def _hard_limit(settings: Settings, sub: Submission) -> float:
    """Seconds after which the parent gives up on a worker (its own limits should act first)."""
    n = len(exercises_of(sub.notebook))
    return 2 * settings.total_timeout + (n + 2) * (settings.cell_timeout + 15) + 120


def _worker(conn, sub: Submission, nb, settings: Settings) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    # a forked process must not use OpenMP threads the parent may have started: judge on one
    torch.set_num_threads(1)
    try:
        graded = grade_submission(sub, settings, nb=nb, on_kernel=lambda pid: conn.send(("kernel", pid)))
        conn.send(("done", graded))
    except BaseException:
        try:
            conn.send(("crash", traceback.format_exc(limit=6)))
        except Exception:
            pass
    finally:
        conn.close()
        os._exit(0)


def _kill_group(pid: int) -> None:
    import signal

    try:
        if os.getpgid(pid) == pid:
            os.killpg(pid, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


class _Gradebook:
    """The CSV, written a submission at a time and flushed to disk each time."""

    def __init__(self, path: Path, kept: list[Row]):
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(COLUMNS)
            w.writerows(r.csv_fields() for r in kept)
        os.replace(tmp, path)
        self.file = open(path, "a", newline="", encoding="utf-8")
        self.writer = csv.writer(self.file)

    def add(self, rows: list[Row]) -> None:
        self.writer.writerows(r.csv_fields() for r in rows)
        self.file.flush()
        os.fsync(self.file.fileno())

    def close(self) -> None:
        self.file.close()


def feedback_path(folder: Path, label: str) -> Path:
    name = re.sub(r"[^\w.\-]+", "_", label.removesuffix(".ipynb").replace("/", "__")) or "submission"
    return folder / f"{name}.md"


def grade_batch(paths: list[str | Path], out: str | Path, *, feedback: str | Path | None = None,
                jobs: int = 1, settings: Settings | None = None, resume: bool = False,
                progress: bool = True, log: Callable[[str], None] = print) -> BatchResult:
    """Grade every submission under ``paths`` into the CSV ``out``; see the module docstring."""
    import multiprocessing as mp
    import sys
    from multiprocessing.connection import wait

    from .feedback import feedback_markdown

    settings = settings or Settings()
    out = Path(out)
    if not out.parent.is_dir():
        raise UsageError(f"the folder of --out does not exist: {out.parent}")
    if jobs < 1:
        raise UsageError("--jobs must be at least 1")
    subs = find_submissions(paths)
    kept: list[Row] = []
    if resume and out.exists():
        kept = read_gradebook(out)
        done = {r.submission for r in kept}
        before = len(subs)
        subs = [s for s in subs if s.label not in done]
        log(f"--resume: keeping the rows of {before - len(subs)} submissions already in {out}; "
            f"grading {len(subs)}.")
    elif out.exists():
        log(f"overwriting {out} (use --resume to keep the submissions it already holds)")
    fb_dir = Path(feedback) if feedback else None
    if fb_dir:
        fb_dir.mkdir(parents=True, exist_ok=True)

    linux = sys.platform.startswith("linux")
    ctx = mp.get_context("fork" if linux else "spawn")
    # what every worker needs, imported once here: forked workers inherit it
    import jupyter_client  # noqa: F401
    import jupyter_client.connect  # noqa: F401
    import nbformat  # noqa: F401
    import zmq  # noqa: F401

    global _zygote
    if settings.preload and linux and subs:
        _zygote = Zygote(ctx)
    book = _Gradebook(out, kept)
    result = BatchResult(rows=list(kept), submissions=len(subs) + len({r.submission for r in kept}),
                         graded_now=0, seconds=0.0)
    start = time.monotonic()
    bar = None
    if progress:
        from tqdm import tqdm

        tqdm.monitor_interval = 0  # no monitor thread in a process that forks
        bar = tqdm(total=len(subs), unit="notebook", file=sys.stderr, dynamic_ncols=True)

    def finish(sub: Submission, graded: Graded) -> None:
        book.add(graded.rows)
        result.rows += graded.rows
        result.graded_now += 1
        if graded.seconds:
            result.worker_seconds.append(graded.seconds)
            result.notebook_seconds.append(graded.notebook_seconds)
        if fb_dir:
            feedback_path(fb_dir, sub.label).write_text(feedback_markdown(sub, graded), encoding="utf-8")
        if bar:
            bar.update(1)

    pending = list(subs)
    running: dict[Any, dict] = {}  # connection -> worker state
    try:
        while pending or running:
            while pending and len(running) < jobs:
                sub = pending.pop(0)
                nb = read_notebook(sub)
                check_gradable(sub)
                if sub.problem:
                    finish(sub, Graded(problem_rows(sub, "error", sub.problem), notes=list(sub.notes)))
                    continue
                here, there = ctx.Pipe(duplex=False)
                proc = ctx.Process(target=_worker, args=(there, sub, nb, settings), daemon=True)
                proc.start()
                there.close()
                running[here] = {"proc": proc, "sub": sub, "kernels": [],
                                 "deadline": time.monotonic() + _hard_limit(settings, sub)}
            if not running:
                continue
            for conn in wait(list(running), timeout=1.0):
                state = running[conn]
                try:
                    kind, payload = conn.recv()
                except (EOFError, OSError):
                    kind, payload = "crash", "the worker process ended without a result"
                if kind == "kernel":
                    state["kernels"].append(payload)
                    continue
                del running[conn]
                conn.close()
                state["proc"].join(5)
                for pid in state["kernels"]:
                    _kill_group(pid)
                if kind == "done":
                    finish(state["sub"], payload)
                else:
                    last = str(payload).strip().splitlines()[-1] if str(payload).strip() else "?"
                    finish(state["sub"], Graded(problem_rows(
                        state["sub"], "error", f"the grader failed on this submission: {last}")))
            now = time.monotonic()
            for conn, state in list(running.items()):
                if now > state["deadline"]:
                    del running[conn]
                    for pid in state["kernels"]:
                        _kill_group(pid)
                    state["proc"].kill()
                    state["proc"].join(5)
                    conn.close()
                    finish(state["sub"], Graded(problem_rows(
                        state["sub"], "timeout", "the grader gave up on this submission after "
                        f"{_hard_limit(settings, state['sub']):.0f} s.")))
    except BaseException:
        for conn, state in running.items():
            for pid in state["kernels"]:
                _kill_group(pid)
            state["proc"].kill()
        raise
    finally:
        book.close()
        if bar:
            bar.close()
        if _zygote is not None:
            _zygote.close()
            _zygote = None
    # all graded: rewrite the gradebook in a stable order (submission, then exercise order)
    order = {ex_id: i for i, ex_id in enumerate(REGISTRY)}
    result.rows.sort(key=lambda r: (r.submission, order.get(r.exercise, -1)))
    _Gradebook(out, result.rows).close()
    result.seconds = time.monotonic() - start
    return result


def summary_table(result: BatchResult) -> str:
    """Per notebook: submissions, mean score, and the rows by status."""
    by_nb: dict[str, dict[str, Any]] = {}
    for r in result.rows:
        d = by_nb.setdefault(r.notebook or "?", {"subs": {}, **{s: 0 for s in STATUSES}})
        pts, mx = d["subs"].get(r.submission, (0.0, 0.0))
        d["subs"][r.submission] = (pts + r.points, mx + r.max_points)
        if r.status in STATUSES:
            d[r.status] += 1
    head = ["notebook", "submissions", "mean score", *STATUSES]
    lines = []
    for nb, d in sorted(by_nb.items()):
        scores = list(d["subs"].values())
        mean = sum(p for p, _ in scores) / len(scores)
        mx = max(m for _, m in scores)
        pct = f" ({100 * mean / mx:.0f} %)" if mx else ""
        lines.append([nb, str(len(scores)), f"{mean:.2f} / {mx:g}{pct}", *(str(d[s]) for s in STATUSES)])
    widths = [max(len(x) for x in col) for col in zip(head, *lines)]
    fmt = "  ".join(f"{{:{'<' if i < 3 else '>'}{w}}}" for i, w in enumerate(widths))
    return "\n".join([fmt.format(*head)] + [fmt.format(*ln) for ln in lines])
