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
