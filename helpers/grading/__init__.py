"""Instructor grading: ``python -m helpers grade SUBMISSIONS... --out grades.csv``.

- ``grader.py``: find submissions, run each in a worker process and a limited kernel, judge,
  write the gradebook;
- ``kernel.py``: the kernel under limits (memory, file size, time, output), and the zygote
  that forks kernels with torch & co. already imported;
- ``kernel_side.py``: the code sent (as text) to the learner's kernel to run the probes;
- ``feedback.py``: one Markdown file per submission;
- ``cli.py``: the command's arguments and summary.

The instructor's workflow around it (issue 13), on submission lists and finished gradebooks:

- ``lms.py``: ``.zip`` downloads, Canvas/Moodle student names, ``--totals``;
- ``report.py``: ``--report``, the class report (HTML, plots embedded);
- ``shard.py``: ``--shard K/N`` and ``grade merge``; ``book.py``: gradebooks read back;
- ``nbgrader.py``: ``python -m helpers nbgrader``; ``gradescope.py``: ``python -m helpers gradescope``.
"""
__all__ = ["grade_batch", "grade_submission", "Settings", "UsageError", "summary_table"]


def __getattr__(name):  # the grader loads on first use: `python -m helpers student` stays light
    if name in __all__:
        from . import grader

        return getattr(grader, name)
    raise AttributeError(name)
