"""Mechanical mutation testing of the checks: mutate each reference one AST site at a time.

    .venv/bin/python -m tests.checks.mutation [--exercise ID ...] [--max N] [--json OUT] [-j N]

For every exercise of tests/checks/mutation_probes.SOURCES the reference (a function or class in
helpers/blocks/, or the solution cell of solutions/*.ipynb) is parsed with `ast`; one mutant is
made per edit of helpers/checks/edits/operators.py, the error model check() searches (binary
operator swapped or its operands, comparison flipped, number nudged, bool flipped, a call replaced
by its first argument or its receiver or by a sibling (tril/triu, amax/amin, sin/cos ...), two
neighbouring arguments or two sibling layers swapped, a keyword argument dropped (dim=,
keepdim=, device= ...), a statement deleted, a unary minus or `~` or `not` removed, -inf made 0;
type hints are left alone). A mutant is kept when it changes the output
of a seeded probe (compared with the reference's); one that raises on the probe is counted as a
crash (not checked), one that gives the same output as equivalent. check() runs on every kept
mutant; the report gives per exercise the mutants that change the output, how many are rejected
and how many get a mistake code.
"""

import argparse
import ast
import contextlib
import io
import json
import random
import signal
import sys
import threading
import time
from multiprocessing import Pool
from pathlib import Path

import torch

from helpers.checks import EXERCISES, edits
from tests.checks.mutation_probes import PROBES, SOURCES, probe_for, same

PROBE_SECONDS, CHECK_SECONDS = 20, 120  # generous: the machine may be shared
#: a mutant's probe may take this many times the reference's own (warm) probe, at least
#: PROBE_FLOOR_S and at most PROBE_SECONDS: a mutant that loops forever costs that, not 20 s
PROBE_FACTOR, PROBE_FLOOR_S = 10, 2.0


def reference_source(exercise: str) -> tuple[str, dict]:
    """(source of the reference definition, the namespace it runs in)."""
    return edits.reference_source(EXERCISES[exercise])


def _sites(tree: ast.AST):
    """(tag, edit) for every edit of helpers/checks/edits/operators.py: the error model's edits
    are the mutants."""
    return [(e.tag, e) for e in edits.edits(tree)]


_strip_annotations, mutant_source, build = edits.strip_annotations, edits.mutant_source, edits.build


@contextlib.contextmanager
def repeating_time_limit(seconds: float, expired: list):
    """TimeoutError after ``seconds``, and again every 10 ms until the block ends (main thread;
    0: no limit). The checks' runner reports the candidate's exception as that case's outcome,
    and check() goes on running cases (its edit search runs the rest): one alarm would leave
    the next case of a mutant that loops forever running forever. ``expired`` gets an entry
    when the time is up."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(*_):
        expired.append(True)
        raise TimeoutError(f"still running after {seconds:.1f} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.01)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_probe(exercise, obj, seconds=PROBE_SECONDS):
    expired: list = []
    try:
        with repeating_time_limit(seconds, expired), contextlib.ExitStack() as stack:
            # a probe written by hand runs without autograd; the check's own cases (a training
            # step, a checkpoint round trip) as the check runs them
            if exercise in PROBES and exercise != "06.train_one_epoch":
                stack.enter_context(torch.no_grad())
            out = probe_for(exercise)(obj)
    except Exception as e:  # noqa: BLE001 - a mutant may raise anything
        out = f"{type(e).__name__}: {e}"[:200]
        return "crash", f"TimeoutError: still running after {seconds:.1f} s" if expired else out
    if expired:  # the runner reported the TimeoutError as a case's outcome
        return "crash", f"TimeoutError: still running after {seconds:.1f} s"
    return "ok", out


def probe_seconds(exercise, obj) -> float:
    """The time limit of a mutant's probe: :data:`PROBE_FACTOR` times the reference's own,
    timed on a second run (the first imports lazily)."""
    start = time.perf_counter()
    run_probe(exercise, obj, seconds=0)
    took = time.perf_counter() - start
    return min(PROBE_SECONDS, max(PROBE_FLOOR_S, PROBE_FACTOR * took))


def judge_mutant(args):
    exercise, desc, source = args
    from helpers import check

    _, ns = reference_source(exercise)
    name = SOURCES[exercise][2]
    obj = build(source, ns, name, desc)
    expired: list = []
    try:
        with (
            repeating_time_limit(CHECK_SECONDS, expired),
            contextlib.redirect_stdout(io.StringIO()),
        ):
            r = check(exercise, obj)
    except TimeoutError:
        pass
    if expired:  # the check did not come back: not counted as rejected
        message = f"check: still running after {CHECK_SECONDS} s"
        return {"site": desc, "passed": None, "mistake": None, "message": message}
    first = (r.messages or [""])[0][:160]
    return {"site": desc, "passed": bool(r.passed), "mistake": r.mistake, "message": first}


def mutants(exercise: str, max_mutants: int, seed: int = 0):
    """The mutants of one exercise that change the probe's output (capped), and the counts."""
    source, ns = reference_source(exercise)
    name = SOURCES[exercise][2]
    # no time limit for the reference: its first run imports lazily (torch.optim, _dynamo)
    reference = build(source, ns, name, "reference")
    status, expected = run_probe(exercise, reference, seconds=0)
    if status != "ok":
        raise RuntimeError(f"{exercise}: the reference fails its own probe: {expected}")
    seconds = probe_seconds(exercise, reference)
    tree = _strip_annotations(ast.parse(source))
    sites = list(_sites(tree))
    counts = {"sites": len(sites), "equivalent": 0, "crash": 0, "timeout": 0, "unbuildable": 0,
              "probe_seconds": round(seconds, 2)}  # fmt: skip
    changed = []
    for desc, mutate in sites:
        try:
            src = mutant_source(tree, mutate)
            status, out = run_probe(exercise, build(src, ns, name, desc), seconds)
        except Exception:  # noqa: BLE001 - a mutant that does not even define the object
            counts["unbuildable"] += 1
            continue
        if status == "crash":
            counts["crash"] += 1
            counts["timeout"] += out.startswith("TimeoutError: still running")
        elif same(out, expected):
            counts["equivalent"] += 1
        else:
            changed.append((exercise, desc, src))
    counts["changed"] = len(changed)
    if len(changed) > max_mutants:  # an even, seeded sample
        changed = random.Random(seed).sample(changed, max_mutants)
    return changed, counts


def run(exercises, max_mutants=40, jobs=1):
    report = {}
    for ex in exercises:
        start = time.time()
        changed, counts = mutants(ex, max_mutants)
        if jobs > 1:
            with Pool(jobs) as pool:
                rows = pool.map(judge_mutant, changed)
        else:
            rows = [judge_mutant(m) for m in changed]
        tested = len(rows)
        rejected = sum(r["passed"] is False for r in rows)
        coded = sum(bool(r["mistake"]) for r in rows if r["passed"] is False)
        report[ex] = dict(counts, tested=tested, rejected=rejected, with_code=coded,
                          seconds=round(time.time() - start, 1), mutants=rows)  # fmt: skip
        print(f"{ex:34} changed {counts['changed']:3} tested {tested:3} rejected {rejected:3} "
              f"({_pct(rejected, tested)}) with a code {coded:3} ({_pct(coded, tested)}) "
              f"[equivalent {counts['equivalent']}, crash {counts['crash']} (timeout "
              f"{counts['timeout']}, limit {counts['probe_seconds']} s)] "
              f"{report[ex]['seconds']} s", flush=True)  # fmt: skip
    t = sum(r["tested"] for r in report.values())
    rej = sum(r["rejected"] for r in report.values())
    cod = sum(r["with_code"] for r in report.values())
    print(f"{'total':34} tested {t} rejected {rej} ({_pct(rej, t)}) code {cod} ({_pct(cod, t)})")
    return report


def _pct(n, d):
    return f"{100 * n / d:.0f} %" if d else "-"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exercise", nargs="*", default=None, help="ids (default: all)")
    ap.add_argument("--max", type=int, default=40, help="mutants checked per exercise")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("-j", "--jobs", type=int, default=1)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    report = run(args.exercise or list(SOURCES), args.max, args.jobs)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
