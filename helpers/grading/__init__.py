"""Instructor grading: ``python -m helpers grade SUBMISSIONS... --out grades.csv``.

Nothing the notebook prints or patches is read: only the files the grader asked for, loaded as
plain data and judged by the grader's process. One job per module:

- ``submissions``: finding the submissions, reading them, which exercises they have;
- ``sandbox``, ``cgroup``, ``separate_user``: what confines a kernel (``--sandbox``);
- ``zygote``: the per-slot process that forks preloaded kernels inside the sandbox;
- ``kernel`` and ``limits``: one kernel under limits (memory, file size, time, output);
- ``run``: running one submission and calling its objects on the grader's probes;
- ``kernel_side``, ``kernel_code``, ``kernel_view``: what a kernel gets (no reference);
- ``isolate``: reading a submission's files under limits; ``pipe``: JSON between processes;
- ``judging``: probes from the secret seed, results loaded as plain data, verdicts;
- ``records``: the plain records (settings, rows, results); ``gradebook``: the CSV, its
  reader, its writer, its record (seed, shard, submissions); ``feedback``: one Markdown file
  per submission; ``batch``: slots, workers, the gradebook written by this process alone;
- ``cli``: ``grade``'s arguments, run and summary; ``merge_cli``: ``grade merge``;
  ``outputs``: ``--totals`` and ``--report`` from a finished gradebook.

The instructor's workflow around it (issue 13): ``archives`` (a downloaded ``.zip`` graded as
it is), ``lms`` (Canvas/Moodle student names, totals per student), ``lms_export`` (``--totals``
as Canvas's import or Moodle's worksheets), ``report`` and ``similarity`` (``--report``),
``shard`` (``--shard K/N|auto``, merging), ``nbgrader`` and ``gradescope`` (those commands).
``grader`` gathers the public names.
"""

__all__ = ["Settings", "UsageError", "grade_batch", "grade_submission"]


def __getattr__(name):  # the grader loads on first use: `python -m helpers student` stays light
    if name in __all__:
        from . import grader

        return getattr(grader, name)
    raise AttributeError(name)
