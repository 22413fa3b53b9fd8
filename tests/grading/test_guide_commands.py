"""The grading commands of the instructor's guide (docs/instructors.md, once the README's
grading part) run as written (issue 42: its ``from helpers.grading import cgroup`` failed once
the module had moved to ``helpers.grading.kernels``).

Every command and Python snippet of the guide's grading part ("Grading submissions" to its
end) is found here: the lines of its fenced ``bash`` blocks (comments out, ``\\``
continuations joined), its fenced ``python`` blocks, and inline code that starts with a program
and gives it an argument. Each runs, in the guide's order, in one folder that stands for the
repository root (its ``notebooks``, ``tests`` and ``Makefile`` linked there) with a small class
(``submissions/``, ``submissions.zip``, ``~/course/submitted``: one notebook each),
``.venv/bin/python`` and ``python`` meaning this interpreter and ``/tmp/ag`` a folder of the
test's: ``make grade`` runs,
other ``make`` targets are dry-run (``make -n``: they rebuild this checkout), a ``--shard auto``
command runs as tasks 1 and 2 of a Slurm array of 2. What no test machine has (Slurm itself,
Kubernetes, nbgrader's own CLI, a package manager, Docker) or what takes minutes (a benchmark)
is in ``NOT_RUN`` with the reason; a command the guide gains is run, or the first test fails
until it is listed.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .builders import ROOT, plain_notebook, write

GUIDE = (ROOT / "docs" / "instructors.md").read_text(encoding="utf-8")
GRADING = GUIDE[GUIDE.index("## Grading submissions") :]
PROGRAMS = r"(\.venv/bin/python|python|make|bwrap|sudo|docker|sbatch|kubectl|systemd-run|nbgrader)"

#: a command (a regular expression it matches) -> why it is not run here
NOT_RUN = {
    r"sudo (apt-get|dnf) install": "installs a system package",
    r"docker run": "needs Docker",
    r"sbatch ": "needs Slurm (the script's command runs, as two tasks of an array)",
    r"kubectl ": "needs Kubernetes",
    r"systemd-run ": "what the grader runs where a systemd user session is its cgroup's source",
    r"(cd ~/course|nbgrader (generate_assignment|autograde|export))": "nbgrader's own CLI",
    r"python -m tests\.grading\.bench_grade": "a benchmark: 100 submissions graded twice",
    r"python -m helpers nbgrader COURSE NN\.\.\.": "the command's form (it runs as written above)",
}
RELU = "import torch\n\ndef relu(x):\n    return torch.where(x > 0, x, torch.zeros_like(x))"


def commands(text: str = GRADING) -> list[tuple[str, str]]:
    """(kind, command) in the guide's order: kind "bash", "python" (a snippet) or "inline"."""
    found = []
    for m in re.finditer(r"```(\w*)\n(.*?)```|`([^`]+)`", text, re.S):
        lang, body, inline = m.groups()
        if inline is not None:
            line = " ".join(inline.split())
            if re.match(PROGRAMS + r" \S", line):
                found.append((m.start(), "inline", line))
        elif lang == "python":
            found.append((m.start(), "python", body))
        elif lang == "bash":
            for line in body.replace("\\\n", " ").splitlines():
                line = " ".join(line.split("  #", 1)[0].split())
                if line and not line.startswith("#"):
                    found.append((m.start(), "bash", line))
    return [(kind, cmd) for _, kind, cmd in found]


def not_run(cmd: str) -> str | None:
    return next((why for pattern, why in NOT_RUN.items() if re.search(pattern, cmd)), None)


def test_every_command_is_run_or_says_why_not():
    found = commands()
    assert len(found) > 20 and any(kind == "python" for kind, _ in found)
    for kind, cmd in found:
        runnable = kind == "python" or re.match(r"(\.venv/bin/)?python |make |bwrap |mkdir |cp |"
                                                r"unzip |cat |AUTOGRADER_ROOT=", cmd)  # fmt: skip
        assert runnable or not_run(cmd), (
            f"the guide's `{cmd}`: run it here, or say in NOT_RUN why not"
        )
    for pattern in NOT_RUN:
        assert any(re.search(pattern, cmd) for _, cmd in found), (
            f"NOT_RUN {pattern!r}: no such command"
        )


def class_folder(root: Path, home: Path) -> None:
    """The repository root as the guide's commands see it, and a class of one tiny notebook
    (each command starts the grader: its kernels' start is the time this test takes)."""
    for name in ("notebooks", "tests", "Makefile", "requirements.txt"):
        (root / name).symlink_to(ROOT / name)
    write(plain_notebook(RELU, notebook="00"), root / "submissions/alice/00_welcome.ipynb")
    shutil.make_archive(str(root / "submissions"), "zip", root / "submissions")
    write(plain_notebook(RELU, notebook="00"), home / "course/submitted/alice/00/00_welcome.ipynb")


def run(kind: str, cmd: str, cwd: Path, env: dict) -> list[str]:
    """Run one command of the guide; the problems it showed (none: it ran as written)."""
    python = shlex.quote(sys.executable)
    if kind == "python":
        if "import pandas" in cmd and not _has("pandas"):
            return []  # pandas is the reader's own tool, not a dependency of this repository
        argv = [sys.executable, "-c", cmd]
    elif cmd.startswith("make "):
        target = cmd.split()[1]
        dry = [] if target == "grade" else ["-n"]
        argv = ["make", "-s", *dry, "-f", str(ROOT / "Makefile"), *cmd.split()[1:], f"PY={python}"]
    elif cmd.startswith("bwrap ") and shutil.which("bwrap") is None:
        return []  # the sandbox's own check: where bubblewrap is installed
    else:
        cmd = re.sub(r"(^|[ =])(\.venv/bin/)?python(?= )", rf"\g<1>{python}", cmd)
        argv = ["bash", "-c", cmd.replace("/tmp/ag", str(cwd / "ag"))]
    tasks = [{}]
    if "--shard auto" in cmd:
        array = {"SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "2"}
        tasks = [{**array, "SLURM_ARRAY_TASK_ID": str(k)} for k in (1, 2)]
    problems = []
    for extra in tasks:
        done = subprocess.run(
            argv, cwd=cwd, env={**env, **extra}, capture_output=True, text=True, timeout=900
        )
        said = done.stdout + done.stderr
        if done.returncode != 0 or "Traceback" in said:
            problems.append(f"`{cmd}` exit {done.returncode}:\n{said[-2000:]}")
    return problems


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


@pytest.mark.slow
def test_the_readme_commands_run_as_written(tmp_path):
    cwd, home = tmp_path / "repo", tmp_path / "home"
    cwd.mkdir()
    class_folder(cwd, home)
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(cwd)}
    problems = []
    for kind, cmd in commands():
        if not_run(cmd) is None:
            problems += run(kind, cmd, cwd, env)
    assert not problems, "\n\n".join(problems)
    assert (cwd / "report.html").exists() and (cwd / "ag" / "results" / "results.json").exists()
