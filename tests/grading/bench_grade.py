"""Time the grader on N submissions of a notebook (not part of the test suite).

    .venv/bin/python -m tests.grading.bench_grade [N] [--jobs 2] [--notebook 02]

Submissions: the solved notebook, every fourth one with a wrong exercise and every fifth the
untouched student version. Prints the batch time and, per submission, the time spent executing
the learner's cells and the grader's overhead beyond that (kernel start, probes, judging).
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from helpers.grading.grader import Settings, exercises_of, grade_batch

from .builders import NOTEBOOKS, load, set_exercise, write


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int, nargs="?", default=100)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--notebook", default="02")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        subs = Path(tmp) / "subs"
        for i in range(args.n):
            if i % 5 == 4:
                nb = load(args.notebook, NOTEBOOKS)
            else:
                nb = load(args.notebook)
                if i % 4 == 3:  # a wrong answer: the first exercise returns None
                    ex = exercises_of(args.notebook)[0]
                    name = ex.id.split(".", 1)[1]
                    set_exercise(nb, ex.id, f"def {name}(*args, **kwargs):\n    return None")
            write(nb, subs / f"s{i:03d}" / f"{args.notebook}_submission.ipynb")
        start = time.perf_counter()
        result = grade_batch([subs], Path(tmp) / "grades.csv", jobs=args.jobs, progress=True,
                             settings=Settings(seed=3, threads=1), log=print)
        total = time.perf_counter() - start
    per = result.worker_seconds
    nbs = result.notebook_seconds
    over = [w - n for w, n in zip(per, nbs)]
    print(f"{args.n} submissions of notebook {args.notebook}, --jobs {args.jobs}: {total:.0f} s "
          f"({total / args.n:.2f} s per submission)")
    print(f"per submission (median): {statistics.median(per):.2f} s in a worker, of which "
          f"{statistics.median(nbs):.2f} s executing the notebook's cells and "
          f"{statistics.median(over):.2f} s grader overhead (kernel start, probes, judging)")


if __name__ == "__main__":
    main()
