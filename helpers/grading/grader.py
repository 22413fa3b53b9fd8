"""Grade submitted notebooks: ``python -m helpers grade SUBMISSIONS... --out grades.csv``.

The grader, one responsibility per module:

- ``submissions.py``: finding the submissions, reading them, which exercises they have;
- ``sandbox.py``: the bubblewrap sandbox each kernel runs in (``--sandbox auto|bwrap|none``);
- ``zygote.py``: the per-slot process that forks preloaded kernels inside the sandbox;
- ``kernel.py`` and ``limits.py``: one kernel under limits (memory, file size, time, output);
- ``run.py``: running one submission and calling its objects on the grader's probes;
- ``kernel_side.py``: the code sent (as text) to the kernel to run the probes;
- ``judging.py``: probes from the secret seed, results loaded as plain data, verdicts;
- ``gradebook.py``: the CSV and the summary; ``feedback.py``: one Markdown file per submission;
- ``batch.py``: the batch: slots, workers, the gradebook written by this process alone.

Nothing the notebook prints or patches is read: only the files the grader asked for, loaded as
plain data and judged by the grader's process. This module gathers the public names.
"""

from __future__ import annotations

from .batch import grade_batch, hard_limit
from .gradebook import Gradebook, feedback_path, read_gradebook, row_from_csv, summary_table
from .judging import (
    CHECK_SOURCES,
    KERNEL_SIDE_SOURCE,
    ResultError,
    changed_sources,
    exercise_seed,
    judge,
    load_results,
    make_probes,
    probe_fields,
)
from .records import (
    COLUMNS,
    OLD_COLUMNS,
    STATUSES,
    BatchResult,
    Graded,
    Row,
    Settings,
    Submission,
    UsageError,
)
from .run import Slot, grade_submission
from .submissions import (
    check_gradable,
    exercises_of,
    find_submissions,
    problem_rows,
    read_notebook,
    target_name,
)

__all__ = [
    "CHECK_SOURCES",
    "COLUMNS",
    "KERNEL_SIDE_SOURCE",
    "OLD_COLUMNS",
    "STATUSES",
    "BatchResult",
    "Gradebook",
    "Graded",
    "ResultError",
    "Row",
    "Settings",
    "Slot",
    "Submission",
    "UsageError",
    "changed_sources",
    "check_gradable",
    "exercise_seed",
    "exercises_of",
    "feedback_path",
    "find_submissions",
    "grade_batch",
    "grade_submission",
    "hard_limit",
    "judge",
    "load_results",
    "make_probes",
    "probe_fields",
    "problem_rows",
    "read_gradebook",
    "read_notebook",
    "row_from_csv",
    "summary_table",
    "target_name",
]
