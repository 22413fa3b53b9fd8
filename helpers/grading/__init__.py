"""Instructor grading: ``python -m helpers grade SUBMISSIONS... --out grades.csv``.

Nothing the notebook prints or patches is read: only the files the grader asked for, loaded as
plain data and judged by the grader's process. The rooms follow the pipeline:

1. ``reading``: finding the submissions, reading them under limits, downloaded ``.zip`` files;
2. ``kernels``: the sandboxed kernel (bubblewrap, cgroups, another user), the zygote that forks
   preloaded kernels, and what a kernel gets (the runner code, never a reference);
3. ``judging``: probes from the secret seed, the kernel's results as plain data, verdicts; the
   judge's own sources checked at the end; similar code in a class;
4. ``books``: the gradebook CSV, feedback files, totals, the class report, the LMS files,
   shards, and the nbgrader course and Gradescope autograder.

Here, above them: ``run`` (one submission: its cells, then its exercises), ``batch``
(slots, workers, the gradebook written by this process alone), ``records`` (the plain
records), ``limits`` (every limit, declared once), ``cli`` and ``merge_cli`` (the commands).
This file is the public face: the names below, each loaded from its module on first use, so
that ``python -m helpers student`` stays light and a sandbox, which holds this file but not the
rest, imports nothing.
"""

from importlib import import_module

#: the public names -> the module (below this package) that defines each
PUBLIC = {
    "BatchResult": "records",
    "changed_sources": "judging.sources",
    "check_gradable": "reading.submissions",
    "CHECK_SOURCES": "judging.sources",
    "COLUMNS": "books.gradebook",
    "exercise_seed": "judging.judging",
    "exercises_of": "reading.submissions",
    "feedback_path": "books.feedback",
    "find_submissions": "reading.submissions",
    "grade_batch": "batch",
    "grade_submission": "run",
    "Gradebook": "books.gradebook",
    "Graded": "records",
    "hard_limit": "batch",
    "judge": "judging.judging",
    "KERNEL_SIDE_SOURCE": "judging.sources",
    "kernel_task": "judging.judging",
    "load_results": "judging.judging",
    "make_probes": "judging.judging",
    "OLD_COLUMNS": "books.gradebook",
    "probe_fields": "judging.judging",
    "problem_rows": "reading.submissions",
    "read_notebook": "reading.submissions",
    "read_rows": "books.gradebook",
    "ResultError": "judging.judging",
    "Row": "records",
    "Settings": "records",
    "Slot": "kernels.kernel_run",
    "STATUSES": "books.gradebook",
    "Submission": "records",
    "target_name": "reading.submissions",
    "UsageError": "records",
}

__all__ = sorted(PUBLIC)


def __getattr__(name):
    if name in PUBLIC:
        return getattr(import_module(f".{PUBLIC[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
