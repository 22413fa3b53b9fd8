"""The reference the error model reads, and its outcome on a probe.

    reference_source(ex) -> (source, namespace): the course's reference of an exercise, a class
                            or function of ``helpers/blocks``, else the exercise cell of the
                            solved notebook; None for a trained model or a question
    reference(ex)        -> the object built from it, once per exercise and process
    reference_outcome(ex, probe) -> its Outcome on a probe, on the CPU, cached by the probe's
                            content (a learner who checks again meets the same probes)

They run in the judge's process (they are the course's code, not the learner's); the search
(search.py) runs its mutants the same way (:func:`run_on`).
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import json
import linecache
import math
import os
import signal
import threading
import time
from typing import TYPE_CHECKING, Any

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils._pytree import tree_leaves

from ... import blocks
from ...notebook_files import ROOT, solution_paths
from ..run.calling import Probe
from ..run.runner import Outcome, Task, _run_on

if TYPE_CHECKING:  # the framework is a floor above: an exercise comes in, none is made here
    from ..framework import Exercise

#: one mutant on one probe: longer is a loop that a flipped comparison made endless
MUTANT_S = 0.2


def build(source: str, ns: dict, name: str, tag: str):
    """exec the source in a copy of ns; inspect.getsource works on the result (linecache)."""
    filename = f"<mutant {tag}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    ns = dict(ns)
    exec(compile(source, filename, "exec"), ns)
    return ns[name]


# --------------------------------------------------------------------------- the references


def reference_name(ex: Exercise) -> str:
    return ex.grade_target or ex.id.split(".", 1)[1]


def reference_source(ex: Exercise) -> tuple[str, dict] | None:
    """(source of ``ex``'s reference definition, the namespace it runs in): from helpers/blocks,
    else the exercise cell of the solved notebook (after the notebook's earlier exercise cells,
    which it may call); None for a trained model, a question's answer, or where the solved
    notebook is not there."""
    if ex.kind in ("trained", "question"):
        return None
    name = reference_name(ex)
    found = getattr(blocks, name, None)
    if found is not None:
        module = __import__(found.__module__, fromlist=["_"])
        text = open(module.__file__).read()
        tree = ast.parse(text)
        node = next(n for n in tree.body if getattr(n, "name", None) == name)
        return ast.get_source_segment(text, node), dict(vars(module))
    notebook = [p for p in solution_paths(ROOT) if p.name.startswith(f"{ex.notebook}_")]
    if not notebook:
        return None
    ns = {"torch": torch, "nn": nn, "F": F, "math": math}
    for cell in json.loads(notebook[0].read_text())["cells"]:
        source = "".join(cell["source"])
        if cell["metadata"].get("course", {}).get("exercise") == ex.id:
            return source, ns
        if cell["metadata"].get("course", {}).get("exercise"):
            with contextlib.suppress(Exception):
                exec(source, ns)
    return None


_REFERENCES: dict[str, Any] = {}


def reference(ex: Exercise) -> Any:
    """The course's reference of ``ex``, built once (None where it ships none)."""
    if ex.id not in _REFERENCES:
        found = reference_source(ex)
        _REFERENCES[ex.id] = found and build(*found, reference_name(ex), "reference")
    return _REFERENCES[ex.id]


def has_reference(ex: Exercise) -> bool:
    return reference(ex) is not None


# --------------------------------------------------------------------------- running it


@contextlib.contextmanager
def time_limit(seconds: float):
    """Raise TimeoutError in the code run within after ``seconds`` (main thread; 0: no limit of
    its own). An outer limit (the mutation tool's around a whole check) keeps running: the inner
    never outlasts it, and it is set again, less the time spent, on the way out."""
    if threading.current_thread() is not threading.main_thread():
        yield  # no alarm there: the reference alone runs so (reproducing() searches in main)
        return

    def expire(signum, frame):
        if _sheltered(frame):  # not now: once the learner's own code runs again
            signal.setitimer(signal.ITIMER_REAL, 0.05)
            return
        raise TimeoutError(f"still running after {seconds} s")

    start = time.monotonic()
    outer, _ = signal.getitimer(signal.ITIMER_REAL)
    previous = signal.getsignal(signal.SIGALRM)
    if seconds:
        signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, min(seconds, outer) if outer else seconds)
    try:
        yield
    finally:
        left = outer - (time.monotonic() - start) if outer else 0.0
        signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3) if outer else 0.0)
        signal.signal(signal.SIGALRM, previous)


#: code a time limit never stops in: the checks' (a built-in switched off and not back on),
#: torch's (a dispatch mode half pushed), the standard library's (a context half left)
SHELTERED = tuple(
    os.path.dirname(os.path.abspath(m.__file__)) + os.sep
    for m in (__import__("helpers"), torch, contextlib)
)


def _sheltered(frame) -> bool:
    """Whether the code interrupted is not the learner's (an edit's loop runs in its own frame),
    or imports a module (torch imports some on first use): a module cut off half made breaks
    every later use of it."""
    name = frame.f_code.co_filename if frame is not None else "<none>"
    if not name.startswith("<") and os.path.abspath(name).startswith(SHELTERED):
        return True
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


#: (exercise id, edit tag or "reference", the probe's fingerprint) -> Outcome: a learner who
#: checks again meets the same probes (the same seed), and so does a batch in the grader


_OUTCOMES: dict[tuple, Outcome] = {}


def fingerprint(probe: Probe) -> str:
    """The probe's content as a digest (its tensors by their bytes)."""
    digest = hashlib.sha1()
    for leaf in tree_leaves((probe.name, probe.runner, probe.args, probe.kwargs, probe.init,
                             probe.state, sorted(probe.info.items(), key=str))):  # fmt: skip
        if isinstance(leaf, torch.Tensor):
            digest.update(f"{leaf.dtype}{tuple(leaf.shape)}".encode())
            digest.update(leaf.detach().cpu().contiguous().view(-1).view(torch.uint8).numpy())
        else:
            digest.update(repr(leaf).encode())
    return digest.hexdigest()


def run_on(task: Task, probe: Probe, obj: Any, tag: str, key: str) -> Outcome:
    if (task.id, tag, key) not in _OUTCOMES:
        try:
            with time_limit(MUTANT_S):
                outcome = _run_on(task, probe, obj, torch.device("cpu"))
        except TimeoutError:
            outcome = Outcome(error="timeout")
        _OUTCOMES[task.id, tag, key] = outcome
    return _OUTCOMES[task.id, tag, key]


def reference_outcome(ex: Exercise, probe: Probe) -> Outcome | None:
    """The course's reference on ``probe``, on the CPU (None where it has none)."""
    course = reference(ex)
    if course is None:
        return None
    task = Task(ex.id, (), ex.parts, ex.function_parts, ex.traced)
    return run_on(task, probe, course, "reference", fingerprint(probe))
