"""What a finished gradebook becomes, for ``grade`` and ``grade merge``: the totals per student
(``--totals``, in the form ``--lms`` imports) and the class report (``--report``)."""

from __future__ import annotations

import argparse
import sys


def add_arguments(p: argparse.ArgumentParser) -> None:
    """``--student-pattern``, ``--totals`` and how it is written, ``--report``."""
    p.add_argument(
        "--student-pattern",
        metavar="REGEX",
        help="who submitted a file: a regular expression with a group (?P<student>...) "
        "searched in its path (default: Canvas, then Moodle download names, then "
        "a folder per student)",
    )
    p.add_argument(
        "--totals",
        metavar="CSV",
        help="write the totals per student in the file --lms imports as it is",
    )
    p.add_argument(
        "--lms",
        choices=("auto", "canvas", "moodle", "plain"),
        default="auto",
        help="--totals for: canvas (its gradebook import), moodle (an offline grading "
        "worksheet per notebook, CSV_NN.csv), plain (student, id, a column per notebook, "
        "total, late); auto = recognized from the download's file names (default)",
    )
    p.add_argument(
        "--canvas-assignment",
        action="append",
        metavar="NN=ID",
        help="the Canvas assignment id of notebook NN (the number in its URL); repeat per notebook",
    )
    p.add_argument(
        "--policy",
        choices=("latest", "best", "ontime"),
        default="latest",
        help="which of a student's submissions of a notebook counts: latest (as LMSs do; "
        "default), best, ontime (the best on time, else the latest)",
    )
    p.add_argument(
        "--late-penalty",
        type=float,
        default=0.0,
        metavar="PERCENT",
        help="percent of a notebook's points taken off a late submission (default: 0)",
    )
    p.add_argument(
        "--report",
        metavar="HTML",
        help="write the class report (pass rates, frequent "
        "mistakes, score histogram, errors): one self-contained HTML file",
    )


def check_arguments(args: argparse.Namespace) -> None:
    """ValueError for a bad --student-pattern, --canvas-assignment or --late-penalty."""
    from ..reading.students import compile_pattern
    from .lms_export import parse_assignments

    if args.student_pattern:
        compile_pattern(args.student_pattern)
    parse_assignments(args.canvas_assignment)
    if not 0 <= args.late_penalty <= 100:
        raise ValueError("--late-penalty is a percentage between 0 and 100")


def code_similarity(paths: list[str], gradebook: str) -> list:
    """The report's similar-code findings over the notebooks under ``paths`` (similarity.py),
    with the gradebook's points (an exercise scored without its code in the notebook)."""
    from ..judging.similarity import similar_in
    from ..reading.submissions import find_submissions
    from .gradebook import read_rows

    scored = {(r.submission, r.exercise) for r in read_rows(gradebook) if r.points > 0}
    return similar_in(find_submissions(paths), scored)


def write_outputs(gradebook: str, options: argparse.Namespace, similar=None) -> None:
    """Totals and report, from a gradebook already written (one run's, or a merged one);
    ``similar``: the similar-code findings for the report (None: that section is left out)."""
    totals, report = options.totals, options.report
    if not (totals or report):
        return
    from .gradebook import read_rows

    rows = read_rows(gradebook)
    if totals:
        from .lms_export import print_totals

        print_totals(rows, totals, options)
    if report:
        from ..reading.students import compile_pattern
        from .report import write_report

        pattern = compile_pattern(options.student_pattern) if options.student_pattern else None
        summary = write_report(report, rows, pattern=pattern, similar=similar)
        print(
            f"class report ({summary.students} students, {summary.submissions} files) -> {report}",
            file=sys.stderr,
        )
