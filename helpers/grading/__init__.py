"""Instructor grading: ``python -m helpers grade SUBMISSIONS... --out grades.csv``.

One responsibility per module (``grader.py`` lists them and gathers the public names):
``submissions``, ``sandbox``, ``zygote``, ``kernel`` and ``limits``, ``run``, ``kernel_side``,
``kernel_code`` and ``kernel_view`` (what a kernel gets of the package: no reference),
``isolate`` (reading a submission's files under limits), ``judging``, ``gradebook``,
``feedback``, ``batch``; ``cli.py``: the command's arguments and summary.

The instructor's workflow around it (issue 13), on submission lists and finished gradebooks:

- ``lms.py``: ``.zip`` downloads, Canvas/Moodle student names, totals per student
  (``--policy``, ``--late-penalty``); ``lms_export.py``: ``--totals`` as Canvas's
  gradebook import or Moodle's offline grading worksheets (``--lms``);
- ``report.py``: ``--report``, the class report (HTML, plots embedded);
  ``similarity.py``: its similar-code section;
- ``shard.py``: ``--shard K/N|auto`` and ``grade merge``; ``book.py``: gradebooks read
  back, and each gradebook's record (seed, shard, submissions);
- ``nbgrader.py``: ``python -m helpers nbgrader``;
  ``gradescope.py``: ``python -m helpers gradescope``; ``separate_user.py``: its fallback
  where bubblewrap cannot start (the notebook as an unprivileged user).
"""

__all__ = ["Settings", "UsageError", "grade_batch", "grade_submission", "summary_table"]


def __getattr__(name):  # the grader loads on first use: `python -m helpers student` stays light
    if name in __all__:
        from . import grader

        return getattr(grader, name)
    raise AttributeError(name)
