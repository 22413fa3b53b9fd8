"""The install keeps a torch that satisfies requirements.txt (learner's guide: "a torch that already
satisfies torch>=2.3 is never reinstalled").

A plain ``pip install -r requirements.txt`` broke that promise unseen: hypothesis-torch >= 2.0.3
asks for torch >= 2.4, so pip upgraded torch 2.3.0 to the newest CUDA build, and CI's "lowest"
environment tested torch 2.14.1. The Makefile now pins the installed torch when it satisfies
the requirement (``KEPT_TORCH``); ``.ci/env-suite`` checks that the lowest environment has the
lowest torch after its install (the real pip run, in CI). Here: the Makefile's own snippet."""

from __future__ import annotations

import shutil
import subprocess
import sys
from importlib.metadata import version

import pytest
import torch

from tests.grading.builders import ROOT


def kept(requirement: str) -> str:
    show = 'kept-torch: ; @$(PY) -c "$$KEPT_TORCH" "$(TORCH_REQ)"'
    cmd = ["make", "-s", f"PY={sys.executable}", f"TORCH_REQ={requirement}", "--eval", show]
    done = subprocess.run([*cmd, "kept-torch"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_the_install_pins_a_torch_that_satisfies_the_requirement():
    # the version pip knows the installed torch by: PyPI's CUDA build says 2.14.1 where
    # torch.__version__ says 2.14.1+cu130 (a plain `make lab` installs that one; CI tests it)
    installed = version("torch")
    assert installed.split("+")[0] == torch.__version__.split("+")[0]
    assert kept("torch>=2.3") == installed  # pinned: pip picks the rest to go with it
    assert kept("torch >= 2.3.0") == installed
    assert kept("torch>=99.0") == ""  # too old: not pinned, pip installs one that satisfies
