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


#: what of the grader depends on torch: every solved notebook graded to full marks in its kernel,
#: and every exercise's kernel side (its probes, runners and outcomes). The other environments of
#: CI (.ci/env-suite, CI_ENV_SUITE=1) run these modules alone; the rest (the sandbox and its
#: attacks, kernels killed or interrupted, hostile files, limits, batches and their books, the LMS
#: files, nbgrader, reports, similarity) is the host's behaviour, the same on every torch build:
#: the main suite runs it. A new module is host-side unless it is named here.
TORCH_MODULES = {"test_grading_units.py", "test_solutions_full_marks.py"}


def pytest_ignore_collect(collection_path, config):
    """In an env suite, skip the host-side modules (see TORCH_MODULES)."""
    name = collection_path.name
    if os.environ.get("CI_ENV_SUITE") == "1" and name.startswith("test_") and name.endswith(".py"):
        return name not in TORCH_MODULES or None
    return None
