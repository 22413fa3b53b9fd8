"""pytest set-up for nbval over solutions/.

nbval compares stdout and displayed values but not stderr: warnings and progress bars go
there and differ between machines.

The notebooks' kernels round floats another way than the machine that stored the outputs
(tests/rounding.py): a stored output that holds only on the CPU that wrote it fails here.
"""

import os

from tests import speed

# The learner's own line (helpers/checks/edits/localise.py) is searched after every failed check,
# up to 2 s each: the suite's many failing checks would spend minutes on it. Off by default here
# ("cause": the hint ladder's lowest rung, in this process, the grader's host side and the kernels
# nbval starts); tests/checks/test_localise.py sets the rung each of its tests needs.
os.environ.setdefault("ATTN2VIT_HINTS", "cause")
from tests.rounding import other_rounding

#: the system tier (`make test-system`; CI runs it after `make test`): the tests that build an
#: environment or a browser, or run the grader end to end (faults, attacks, a class's folder, the
#: LMS and nbgrader files), the sweeps over seeds and held-out sets, and the tests that
#: train a model (tests/checks/conftest.py: TRAINED). `make test` is the rest,
#: what a change to a lesson, a check or the grader's core meets first (docs/maintainers.md gives
#: the time of each). An entry is a file or a folder from the repository root, or the start of a
#: test's id.
SYSTEM = (
    "tests/e2e/",
    "tests/test_wheel.py",
    "tests/test_my_blocks.py",
    "tests/test_student_notebooks.py",
    "tests/checks/test_any_seed.py",
    "tests/checks/test_heldout.py",
    "tests/checks/test_heldout_l.py",
    "tests/checks/test_localise.py::test_every_fix_shown_passes_every_case_at_two_seeds",
    "tests/grading/test_attack_round4.py",
    "tests/grading/test_attack_round5.py",
    "tests/grading/test_fair_share.py",
    "tests/grading/test_faults.py",
    "tests/grading/test_gradescope_safe.py",
    "tests/grading/test_guide_commands.py",
    "tests/grading/test_hostile_inputs.py",
    "tests/grading/test_instructor_workflow.py",
    "tests/grading/test_large_notebook.py",
    "tests/grading/test_nbgrader.py",
    "tests/grading/test_reference_out_of_reach.py",
    "tests/grading/test_sandbox_attacks.py",
    "tests/grading/test_solutions_full_marks.py",
    "tests/grading/test_tasks_cap.py",
    "tests/grading/test_writable_places.py",
)


def pytest_collection_modifyitems(config, items):
    root = config.rootpath
    for item in items:
        where = f"{item.path.relative_to(root).as_posix()}::{item.name}"
        if where.startswith(SYSTEM):
            item.add_marker("system")


def pytest_collectstart(collector):
    if collector.__class__.__name__ == "IPyNbFile":
        collector.skip_compare = tuple(collector.skip_compare) + ("stderr",)
        _check_figures(collector)


def _check_figures(collector):
    """Once nbval has started a notebook's kernel (rounding as tests/rounding.py says), every
    figure the notebook renders is checked there by tests/figure_rules.py (axis labels, colour
    keys, legends, text size, titles): one that does not stand alone prints why, and nbval fails
    the cell (its stdout differs from the stored)."""
    setup = collector.setup

    def setup_and_check_figures():
        with other_rounding():
            setup()
        from tests.figure_rules import kernel_code

        kernel = collector.kernel
        msg_id = kernel.kc.execute(kernel_code(), store_history=False)
        while True:
            reply = kernel.get_message(stream="shell", timeout=60)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        kernel.await_idle(msg_id, 60)
        if reply["content"]["status"] != "ok":
            raise RuntimeError(f"tests/figure_rules.py in the kernel: {reply['content']}")

    collector.setup = setup_and_check_figures


# Runtime budget (helpers.notebooks.bench): nbval's own durations, summed per notebook in the
# process that sees every report (the xdist controller, or the only process); the session fails
# when a notebook takes more than NOISE_FACTOR times its budget.
_budget = {"times": None, "problems": [], "slowdown": speed.SLOWDOWN}
# nbval per notebook: {path: {cell name: passed}}, for a summary that names every notebook whose
# outputs differ (`make test-gpu` compares a GPU run with the stored CPU outputs).
_cells: dict[str, dict[str, bool]] = {}


def pytest_runtest_logreport(report):
    path, _, cell = report.nodeid.partition("::")
    if path.endswith(".ipynb"):
        cells = _cells.setdefault(path, {})
        cells[cell] = cells.get(cell, True) and not report.failed
        if _budget["times"] is None:
            from helpers.notebooks.bench import NbvalTimes

            _budget["times"] = NbvalTimes()
        _budget["times"].add(report.nodeid, report.duration)


def pytest_runtest_makereport(item, call):
    """A notebook whose kernel did not start: say what the machine was doing (load, top processes).

    CI once saw "Kernel didn't respond in 60 seconds" for one notebook, never here; the next time
    the report shows the cause. A cell failed by a figure that does not stand alone: the report
    says what it lacks (nbval alone says "Unexpected output fields: stdout").
    """
    if call.when == "call" and call.excinfo is not None:
        stdout = "".join(
            out.get("text", "")
            for out in getattr(item, "test_outputs", None) or []
            if out.get("name") == "stdout"
        )
        from tests.figure_rules import HEADER

        if HEADER in stdout:
            item.add_report_section("call", "figure", stdout[stdout.index(HEADER) :])
    if call.when != "setup" or call.excinfo is None or not item.nodeid.endswith("Cell 0"):
        return
    if item.nodeid.partition("::")[0].endswith(".ipynb"):
        import subprocess

        ps = subprocess.run(
            ["ps", "-eo", "pid,ppid,stat,etime,pcpu,rss,args", "--sort=-pcpu"],
            capture_output=True,
            text=True,
        ).stdout.splitlines()[:16]
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        item.add_report_section("setup", "machine", f"load average {load}\n" + "\n".join(ps))


def pytest_sessionfinish(session, exitstatus):
    times = _budget["times"]
    if times is None or hasattr(session.config, "workerinput"):
        return
    from helpers.notebooks.bench import NOISE_FACTOR

    # NOTEBOOK_BUDGET_FACTOR=0 switches the check off; on a busy machine the budgets grow by the
    # slowdown measured when the session started and when it ended, the larger (tests/speed.py)
    factor = float(os.environ.get("NOTEBOOK_BUDGET_FACTOR", NOISE_FACTOR))
    if not os.environ.get("TEST_SLOWDOWN"):
        _budget["slowdown"] = max(speed.SLOWDOWN, speed.measure())
    factor *= _budget["slowdown"]
    _budget["problems"] = times.problems(factor) if factor > 0 else []
    if _budget["problems"] and session.exitstatus == 0:
        session.exitstatus = 1


def pytest_terminal_summary(terminalreporter):
    for rep in terminalreporter.stats.get("skipped", []):
        if rep.nodeid.startswith("tests/e2e") and isinstance(rep.longrepr, tuple):
            terminalreporter.write_line(f"SKIPPED {rep.nodeid}: {rep.longrepr[2]}", yellow=True)
    times = _budget["times"]
    if times is None or hasattr(terminalreporter.config, "workerinput"):
        return
    terminalreporter.section("notebook runtime budget (nbval wall time, kernel start included)")
    terminalreporter.write_line(
        f"budgets x {_budget['slowdown']:.2f}: this machine's slowdown (tests/speed.py), "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    for line in times.summary():
        terminalreporter.write_line(line)
    for problem in _budget["problems"]:
        terminalreporter.write_line(f"FAILED runtime budget: {problem}", red=True, bold=True)
    terminalreporter.section("nbval per notebook")
    for path, cells in sorted(_cells.items()):
        bad = [cell for cell, ok in cells.items() if not ok]
        if bad:
            terminalreporter.write_line(
                f"DIFFERS {path}: {len(bad)} of {len(cells)} cells ({', '.join(bad)})", red=True
            )
        else:
            terminalreporter.write_line(f"ok      {path}: {len(cells)} cells")
