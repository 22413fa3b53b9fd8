"""Time the grader on N submissions of a notebook (not part of the test suite).

    .venv/bin/python -m tests.grading.bench_grade [N] [--jobs 2] [--notebook 02] [--sandbox auto]
    .venv/bin/python -m tests.grading.bench_grade 100 --compare   # sandboxed, then --sandbox none

Submissions: the solved notebook, every fourth one with a wrong exercise and every fifth the
untouched student version. Prints the batch time and, per submission, the time spent executing
the learner's cells and the grader's overhead beyond that (kernel start, probes, judging), and
the load average before and after (the machine may be shared). ``--compare`` grades the same
submissions a second time with ``--sandbox none`` and prints the sandbox's cost as a ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from helpers.grading import Settings, exercises_of, grade_batch

from .builders import NOTEBOOKS, load, set_exercise, write


def make_submissions(folder: Path, n: int, notebook: str) -> None:
    for i in range(n):
        if i % 5 == 4:
            nb = load(notebook, NOTEBOOKS)
        else:
            nb = load(notebook)
            if i % 4 == 3:  # a wrong answer: the first exercise returns None
                ex = exercises_of(notebook)[0]
                name = ex.id.split(".", 1)[1]
                set_exercise(nb, ex.id, f"def {name}(*args, **kwargs):\n    return None")
        write(nb, folder / f"s{i:03d}" / f"{notebook}_submission.ipynb")


def timed(subs: Path, out: Path, jobs: int, sandbox: str) -> tuple[float, object]:
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    result = grade_batch(
        [subs],
        out,
        jobs=jobs,
        progress=True,
        log=print,
        settings=Settings(seed=3, threads=1, sandbox=sandbox),
    )
    total = time.perf_counter() - start
    n = result.graded_now
    per, nbs = result.worker_seconds, result.notebook_seconds
    over = [w - b for w, b in zip(per, nbs)]
    print(
        f"[sandbox {result.sandbox}] {n} submissions, --jobs {jobs}: {total:.0f} s "
        f"({total / n:.2f} s per submission); load average {load_before:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after"
    )
    print(
        f"  per submission (median): {statistics.median(per):.2f} s in a worker, of which "
        f"{statistics.median(nbs):.2f} s executing the notebook's cells and "
        f"{statistics.median(over):.2f} s grader overhead (kernel start, probes, judging)"
    )
    return total, result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int, nargs="?", default=100)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--notebook", default="02")
    ap.add_argument("--sandbox", default="auto", choices=("auto", "bwrap", "none"))
    ap.add_argument("--compare", action="store_true", help="then the same with --sandbox none")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        subs = Path(tmp) / "subs"
        make_submissions(subs, args.n, args.notebook)
        total, result = timed(subs, Path(tmp) / "grades.csv", args.jobs, args.sandbox)
        if args.compare:
            bare, bare_result = timed(subs, Path(tmp) / "grades-none.csv", args.jobs, "none")
            same = [(r.submission, r.exercise, r.status, r.points) for r in result.rows] == [
                (r.submission, r.exercise, r.status, r.points) for r in bare_result.rows
            ]
            print(
                f"sandbox ({result.sandbox}) / none: {total / bare:.2f}x the batch time, "
                f"{(total - bare) / args.n:+.2f} s per submission; same grades: {same}"
            )


if __name__ == "__main__":
    main()
