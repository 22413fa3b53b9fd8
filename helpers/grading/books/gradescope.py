"""A Gradescope autograder: ``python -m helpers gradescope NN --out autograder_NN.zip``.

The zip holds what Gradescope's "Zipped Folder Upload" expects at its root:

- ``setup.sh``: run once when Gradescope builds the image (it has internet): a virtual
  environment in ``/autograder/venv`` with a CPU build of torch and the series' dependencies;
- ``run_autograder``: grades the student's ``/autograder/submission/*.ipynb`` with this
  package's grader (fresh kernel, secret random inputs, judged outside the learner's kernel)
  and writes ``/autograder/results/results.json``;
- ``helpers/`` (this package's source, put on ``PYTHONPATH``) and ``requirements-autograder.txt``.

Both scripts take the root from ``$AUTOGRADER_ROOT`` (default ``/autograder``), and
``run_autograder`` the interpreter from ``$AUTOGRADER_PYTHON`` (default: the venv's, else
``python3``), so the bundle can be tried on any machine.

results.json (Gradescope's documented autograder format): top-level ``score``,
``execution_time``, ``output``, ``visibility``, ``stdout_visibility`` and ``tests``; one test per
exercise with ``name``, ``number``, ``score``, ``max_score``, ``status`` (passed/failed),
``output`` (the check's message), ``visibility`` and ``extra_data`` (grader status, mistake).
"""

from __future__ import annotations

import argparse
import json
import secrets
import shutil
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from ...notebook_files import ROOT
from ...notebook_files import notebook_number as number_in_name

PACKAGE = ROOT / "helpers"
# packages the tests and the lab need but grading does not
DEV_ONLY = {"jupyterlab", "nbval", "pytest", "pytest-xdist", "playwright", "nbgrader"}

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image.
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
apt-get update -qq
# bubblewrap: each notebook runs in a sandbox; where the container does not let it start,
# the notebook runs as the unprivileged user `notebook` instead
# (helpers/grading/kernels/separate_user.py)
apt-get install -y -qq python3 python3-venv python3-pip bubblewrap
id -u notebook >/dev/null 2>&1 ||
    useradd --system --no-create-home --shell /usr/sbin/nologin notebook
python3 -m venv "$ROOT/venv"
"$ROOT/venv/bin/python" -m pip install --quiet --upgrade pip
# a CPU build of torch: Gradescope's machines have no GPU, and the CUDA build is gigabytes
"$ROOT/venv/bin/python" -m pip install --quiet torch \\
    --index-url https://download.pytorch.org/whl/cpu
"$ROOT/venv/bin/python" -m pip install --quiet -r "$ROOT/source/requirements-autograder.txt"
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for each submission: grade notebook {notebook}, write results.json.
set -u
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
PYTHON="${{AUTOGRADER_PYTHON:-}}"
if [ -z "$PYTHON" ]; then
    if [ -x "$ROOT/venv/bin/python" ]; then PYTHON="$ROOT/venv/bin/python"; else PYTHON=python3; fi
fi
export PYTHONPATH="$ROOT/source${{PYTHONPATH:+:$PYTHONPATH}}"
export OMP_NUM_THREADS="${{OMP_NUM_THREADS:-1}}"
mkdir -p "$ROOT/results"
cd "$ROOT/source"
exec "$PYTHON" -m helpers gradescope run --root "$ROOT" --notebook {notebook} \
    ${{AUTOGRADER_USER:+--user "$AUTOGRADER_USER"}}
"""


def autograder_requirements(requirements: Path = ROOT / "requirements.txt") -> str:
    """requirements.txt less the editable install and the dev-only packages."""
    keep = []
    for line in requirements.read_text(encoding="utf-8").splitlines():
        spec = line.split("#", 1)[0].strip()
        name = spec.split(";")[0]
        for sep in "<>=!~[ ":
            name = name.split(sep)[0]
        if spec and not spec.startswith("-") and name.lower() not in DEV_ONLY:
            keep.append(spec)
    return "\n".join(keep) + "\n"


def _add(archive: zipfile.ZipFile, name: str, data: str | bytes, mode: int = 0o644) -> None:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))  # reproducible bytes
    info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def build_bundle(notebook: str, out: str | Path) -> Path:
    """Write the autograder zip for notebook ``notebook`` (e.g. "02", "2", "07b")."""
    from ..reading.submissions import exercises_of, metadata_number

    number = metadata_number(notebook) or notebook
    if not exercises_of(number):
        raise ValueError(f"notebook {number} has no graded exercises")
    out = Path(out)
    with zipfile.ZipFile(out, "w") as archive:
        _add(archive, "setup.sh", SETUP_SH, 0o755)
        _add(archive, "run_autograder", RUN_AUTOGRADER.format(notebook=number), 0o755)
        _add(archive, "requirements-autograder.txt", autograder_requirements())
        for path in sorted(PACKAGE.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                _add(archive, path.relative_to(ROOT).as_posix(), path.read_bytes())
    return out


# --------------------------------------------------------------------------- on Gradescope


def pick_submission(folder: Path, number: str) -> Path | None:
    """The notebook to grade: one named NN_*, else the only notebook, else the first."""
    found = sorted(
        p for p in folder.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts and p.is_file()
    )
    named = [p for p in found if number_in_name(p) == number]  # 07b_* is not notebook 07
    return (named or found or [None])[0]


def _test(i: int, ex, score: float, status: str, output: str, mistake: str = "") -> dict:
    """One test of results.json: named after the exercise, whatever happened to it."""
    extra = {"status": status, **({"mistake": mistake} if mistake else {})}
    return {
        "name": f"{ex.id}: {ex.title}",
        "number": str(i),
        "score": score,
        "max_score": float(ex.points),
        "status": "passed" if status == "passed" else "failed",
        "output": output.strip() or status,
        "visibility": "visible",
        "extra_data": extra,
    }


def _results(tests: list[dict], seconds: float, output: str) -> dict:
    return {
        "score": sum(t["score"] for t in tests),
        "execution_time": round(seconds),
        "output": output,
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
    }


def results_json(graded, number: str, seconds: float, picked: str) -> dict:
    """Gradescope's results.json: one test per exercise of notebook ``number``, in order,
    from the grader's rows (a row of the whole submission, e.g. not a notebook, applies to
    every exercise)."""
    from ..reading.submissions import exercises_of

    rows = {r.exercise: r for r in graded.rows}
    whole = next((r for r in graded.rows if not r.exercise), None)
    tests = []
    for i, ex in enumerate(exercises_of(number), 1):
        r = rows.get(ex.id)
        if r is None:
            why = whole.message if whole else "not graded"
            tests.append(_test(i, ex, 0.0, whole.status if whole else "missing", why))
            continue
        message = graded.messages.get(r.exercise, r.message)
        tests.append(_test(i, ex, r.points, r.status, message, getattr(r, "mistake", "")))
    notes = "".join(f"\n- {n}" for n in graded.notes)
    return _results(
        tests,
        seconds,
        f"Graded {picked} as notebook {number}, on fresh random inputs."
        + (f"\nNotes from running the notebook:{notes}" if notes else ""),
    )


def _zero(number: str, why: str, seconds: float = 0.0) -> dict:
    """Every exercise 0 points, each saying ``why`` (no notebook, the wrong notebook)."""
    from ..reading.submissions import exercises_of

    tests = [_test(i, ex, 0.0, "error", why) for i, ex in enumerate(exercises_of(number), 1)]
    return _results(tests, seconds, why)


def notebook_number(path: Path) -> str | None:
    """The notebook number the grader would grade ``path`` as (its metadata, or its name)."""
    from ..reading.submissions import read_notebook
    from ..records import Submission

    sub = Submission(path, path.name)
    read_notebook(sub)
    return sub.notebook


def confinement(user: str | None) -> tuple[str, tuple[int, int] | None, str]:
    """How the notebook runs here: ("bwrap" | "user" | "none", (uid, gid), the note to show).
    Never unconfined without saying so."""
    from ..kernels import sandbox, separate_user

    kind, warning = sandbox.resolve("auto")
    if kind == "bwrap":
        return "bwrap", None, "Sandbox: bubblewrap."
    why = warning.split("UNCONFINED: ", 1)[-1].split(". Code", 1)[0]
    if separate_user.available():
        uid, gid = separate_user.resolve_user(user)
        return (
            "user",
            (uid, gid),
            f"WARNING: bubblewrap cannot sandbox here ({why}): the notebook ran as the "
            f"unprivileged user uid {uid} instead (it can write neither results.json nor the "
            "autograder's files; all its processes were ended before the results were written).",
        )
    return "none", None, f"WARNING: the notebook ran UNCONFINED ({why}, and not as root)."


def _grade_file(picked: Path, number: str, seed: int | None, user: str | None):
    """Run and judge ``picked`` as notebook ``number``: (graded, the confinement note)."""
    from ..kernels import scratch, separate_user, watchdog
    from ..kernels.kernel_run import Slot
    from ..kernels.slots import watch
    from ..records import Settings, Submission
    from ..run import grade_submission

    kind, ids, note = confinement(user)
    settings = Settings(seed=seed if seed is not None else secrets.randbelow(2**31), threads=1)
    with tempfile.TemporaryDirectory(prefix="gradescope-") as tmp:
        # the bundle grades notebook NN whatever the upload is called: name the copy NN_...
        work = Path(tmp) / "work"
        shutil.copytree(picked.parent, work, ignore=shutil.ignore_patterns("*.ipynb"))
        named = number_in_name(picked) == number
        path = work / (picked.name if named else f"{number}_{picked.name}")
        shutil.copyfile(picked, path)
        sub = Submission(path, picked.name)
        if kind != "user":
            return grade_submission(sub, settings), note
        folder = Path(tempfile.mkdtemp(prefix="gradescope-slot-"))  # the user enters it
        (folder / "view").mkdir(mode=0o755)  # the package as a kernel sees it (no reference)
        slot = Slot(
            folder,
            sandbox=separate_user.prefix(*ids),
            view=folder / "view",
            memory_report=folder / "memory",
        )
        dog = watchdog.Watchdog()  # all of the user's processes, under the slot's memory
        watch(dog, slot, "user", settings.memory_bytes, uid=ids[0])
        try:
            with separate_user.package_hidden():  # the real package: root's alone meanwhile
                graded = grade_submission(sub, settings, slot=slot)
        finally:
            left = separate_user.end_all(ids[0])  # every process of the user, detached too
            dog.close()
            scratch.remove(folder)
        if left:
            graded.notes.append(f"(grader) {left} processes the notebook left running were ended.")
        return graded, note


def grade_upload(root: Path, number: str, seed: int | None = None, user: str | None = None) -> dict:
    """Grade ``root/submission`` and write ``root/results/results.json``; returns the results.
    A notebook other than ``number`` scores 0 and says which it is."""
    started = time.monotonic()
    results_dir = root / "results"
    results_dir.mkdir(parents=True, exist_ok=True)
    picked = pick_submission(root / "submission", number)
    found = notebook_number(picked) if picked is not None else None
    if picked is None:
        results = _zero(number, f"No .ipynb file found: upload your notebook {number}.")
    elif found is not None and found != number:
        results = _zero(
            number,
            f"{picked.name} is notebook {found}, not notebook {number}: upload your notebook "
            f"{number} to this assignment.",
        )
    else:
        graded, note = _grade_file(picked, number, seed, user)
        results = results_json(graded, number, time.monotonic() - started, picked.name)
        results["output"] += "\n" + note
        print(note)  # run_autograder's stdout: what the instructor sees
    (results_dir / "results.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    return results


def add_arguments(p: argparse.ArgumentParser) -> None:
    """``python -m helpers gradescope NN --out autograder_NN.zip``."""
    p.add_argument("number", metavar="NN")
    p.add_argument("--out", type=Path, default=None, help="default: autograder_NN.zip")


def run(args: argparse.Namespace) -> int:
    from ..reading.submissions import metadata_number

    number = metadata_number(args.number)  # "2" -> "02", "7b" -> "07b"
    if number is None:
        raise ValueError(f"NN is a notebook number, got {args.number!r}")
    out = args.out or Path(f"autograder_{number}.zip")
    print(f"Gradescope autograder -> {build_bundle(args.number, out)}")
    return 0


def add_run_arguments(r: argparse.ArgumentParser) -> None:
    """``python -m helpers gradescope run``: inside the autograder (``run_autograder``)."""
    r.add_argument("--root", type=Path, default=Path("/autograder"))
    r.add_argument("--notebook", required=True)
    r.add_argument("--seed", type=int, default=None)
    r.add_argument(
        "--user",
        default=None,
        help="where bubblewrap cannot start: the unprivileged user (name or uid) the notebook "
        "runs as (default: notebook, made by setup.sh, else nobody)",
    )


def run_upload(args: argparse.Namespace) -> int:
    """Grade the upload into results.json."""
    results = grade_upload(args.root, f"{int(args.notebook):02d}", args.seed, args.user)
    print(f"score {results['score']:g}: {args.root / 'results' / 'results.json'}")
    return 0


if __name__ == "__main__":  # bundles built before `gradescope run` joined the one command tree
    from helpers.__main__ import main

    sys.exit(main(["gradescope", *sys.argv[1:]]))
