"""The grader's public names, gathered in one place for the tools and tests that use them
(the map of the modules that define them: ``helpers/grading/__init__.py``)."""

from __future__ import annotations

from .batch import grade_batch, hard_limit
from .feedback import feedback_path
from .gradebook import COLUMNS, OLD_COLUMNS, STATUSES, Gradebook, read_rows
from .judging import (
    ResultError,
    exercise_seed,
    judge,
    load_results,
    make_probes,
    probe_fields,
)
from .kernel_run import Slot
from .records import (
    BatchResult,
    Graded,
    Row,
    Settings,
    Submission,
    UsageError,
)
from .run import grade_submission
from .sources import CHECK_SOURCES, KERNEL_SIDE_SOURCE, changed_sources
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
    "read_rows",
    "read_notebook",
    "target_name",
]
