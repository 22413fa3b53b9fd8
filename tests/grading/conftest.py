"""The device the grading tests grade on: GRADE_DEVICE=cuda (default cpu), as in `make test-gpu`."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def grade_device() -> str:
    """The grader's --device for every kernel these tests start; fails at once if torch lacks it."""
    device = os.environ.get("GRADE_DEVICE", "cpu")
    if device != "cpu":
        import torch

        try:
            torch.empty(1, device=device)
        except (RuntimeError, AssertionError) as e:  # no such device, or a build without it
            pytest.fail(f"GRADE_DEVICE={device}: torch cannot use it ({e})", pytrace=False)
    return device


#: the grader's host behaviour: the sandbox and its attacks, kernels killed or interrupted,
#: hostile files, limits, writable places, another user, the students' reports and similarity.
#: It is the same on every torch build, so the main suite alone runs these modules; the other
#: environments of CI (.ci/env-suite, CI_ENV_SUITE=1) run what depends on torch: every solved
#: notebook graded to full marks, batches, carry-forward, the instructor workflow and the LMS
#: files, nbgrader, and the grader's units.
HOST_MODULES = [
    "test_archives.py",
    "test_attack_round4.py",
    "test_csv_cells.py",
    "test_fair_share.py",
    "test_faults.py",
    "test_gradescope_safe.py",
    "test_guide_commands.py",
    "test_hostile_inputs.py",
    "test_labels.py",
    "test_large_notebook.py",
    "test_limits.py",
    "test_reference_out_of_reach.py",
    "test_report_students.py",
    "test_sandbox_attacks.py",
    "test_sandbox_units.py",
    "test_similarity.py",
    "test_tasks_cap.py",
    "test_writable_places.py",
]
collect_ignore = HOST_MODULES if os.environ.get("CI_ENV_SUITE") == "1" else []
