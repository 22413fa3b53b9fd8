"""Mechanical mutation testing of the checks: mutate each reference one AST site at a time.

    .venv/bin/python -m tests.checks.mutation [--exercise ID ...] [--max N] [--json OUT] [-j N]

For every exercise of tests/checks/mutation_probes.SOURCES the reference (a function or class in
helpers/blocks/, or the solution cell of solutions/*.ipynb) is parsed with `ast`; one mutant is
made per edit of helpers/checks/edits.py, the error model check() searches (binary operator
swapped or its operands, comparison flipped, number nudged, bool flipped, a call replaced by its
first argument or its receiver or by a sibling (tril/triu, amax/amin, sin/cos ...), two
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
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import torch

from helpers.checks import EXERCISES, edits
from tests.checks.mutation_probes import SOURCES, probe_for, same

PROBE_SECONDS, CHECK_SECONDS = 20, 120  # generous: the machine may be shared


def reference_source(exercise: str) -> tuple[str, dict]:
    """(source of the reference definition, the namespace it runs in)."""
    return edits.reference_source(EXERCISES[exercise])


def _sites(tree: ast.AST):
    """(tag, edit) for every edit of helpers/checks/edits.py: the error model's edits are the
    mutants."""
    return [(e.tag, e) for e in edits.edits(tree)]


_strip_annotations, mutant_source, build = edits.strip_annotations, edits.mutant_source, edits.build
# a mutant may loop forever (a deleted `break`, a flipped `<`): TimeoutError instead; 0: no limit
time_limit = edits.time_limit


def run_probe(exercise, obj, seconds=PROBE_SECONDS):
    try:
        with time_limit(seconds), contextlib.ExitStack() as stack:
            if exercise != "06.train_one_epoch":
                stack.enter_context(torch.no_grad())
            return "ok", probe_for(exercise)(obj)
    except Exception as e:  # noqa: BLE001 - a mutant may raise anything
        return "crash", f"{type(e).__name__}: {e}"[:200]


def judge_mutant(args):
    exercise, desc, source = args
    from helpers import check

    _, ns = reference_source(exercise)
    name = SOURCES[exercise][2]
    obj = build(source, ns, name, desc)
    try:
        with time_limit(CHECK_SECONDS), contextlib.redirect_stdout(io.StringIO()):
            r = check(exercise, obj)
    except TimeoutError as e:  # the check did not come back: not counted as rejected
        return {"site": desc, "passed": None, "mistake": None, "message": f"check: {e}"}
    first = (r.messages or [""])[0][:160]
    return {"site": desc, "passed": bool(r.passed), "mistake": r.mistake, "message": first}


def mutants(exercise: str, max_mutants: int, seed: int = 0):
    """The mutants of one exercise that change the probe's output (capped), and the counts."""
    source, ns = reference_source(exercise)
    name = SOURCES[exercise][2]
    # no time limit for the reference: its first run imports lazily (torch.optim, _dynamo)
    status, expected = run_probe(exercise, build(source, ns, name, "reference"), seconds=0)
    if status != "ok":
        raise RuntimeError(f"{exercise}: the reference fails its own probe: {expected}")
    tree = _strip_annotations(ast.parse(source))
    sites = list(_sites(tree))
    counts = {"sites": len(sites), "equivalent": 0, "crash": 0, "unbuildable": 0}
    changed = []
    for desc, mutate in sites:
        try:
            src = mutant_source(tree, mutate)
            status, out = run_probe(exercise, build(src, ns, name, desc))
        except Exception:  # noqa: BLE001 - a mutant that does not even define the object
            counts["unbuildable"] += 1
            continue
        if status == "crash":
            counts["crash"] += 1
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
              f"[equivalent {counts['equivalent']}, crash {counts['crash']}] "
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
