"""Gradebooks and what is made of them: the CSV (``gradebook``), one Markdown feedback file per
submission (``feedback``), totals and the class report (``outputs``, ``lms``, ``report``),
the files an LMS imports (``lms_export``), shards and merging (``shard``), and the nbgrader
course and Gradescope autograder made from the solved notebooks (``nbgrader``,
``gradescope``)."""
