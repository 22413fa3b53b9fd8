"""The one command tree (helpers/__main__.py): every command and sub-command, one error path."""

import pytest

from helpers.__main__ import COMMANDS, main, parser


@pytest.mark.parametrize(
    "argv, module, run",
    [
        (["grade", "subs", "--out", "g.csv"], "helpers.grading.cli", "run"),
        (["grade", "./merge", "--jobs", "2"], "helpers.grading.cli", "run"),  # a folder "merge"
        (["grade", "--out", "g.csv", "subs"], "helpers.grading.cli", "run"),  # options first
        (["gradescope", "--out", "a.zip", "02"], "helpers.grading.books.gradescope", "run"),
        (["grade", "merge", "m.csv", "a.csv", "b.csv"], "helpers.grading.merge_cli", "run"),
        (["gradescope", "02", "--out", "a.zip"], "helpers.grading.books.gradescope", "run"),
        (
            ["gradescope", "run", "--notebook", "02"],
            "helpers.grading.books.gradescope",
            "run_upload",
        ),
        (["execute", "a.ipynb"], "helpers.notebooks.execute", "run"),
    ],
)
def test_each_command_line_reaches_its_command(argv, module, run):
    args = parser().parse_args(argv)
    assert (args.command.module, args.command.run) == (module, run)


def test_a_command_with_sub_commands_keeps_its_own_arguments():
    args = parser().parse_args(["grade", "a", "b", "--out", "g.csv", "--seed", "3"])
    assert args.submissions == ["a", "b"] and args.out == "g.csv" and args.seed == 3
    first = parser().parse_args(["grade", "--seed=3", "--out", "g.csv", "a", "b"])
    assert first.submissions == ["a", "b"] and first.out == "g.csv" and first.seed == 3
    merged = parser().parse_args(["grade", "merge", "m.csv", "p1.csv", "--totals", "t.csv"])
    assert merged.out == "m.csv" and merged.parts == ["p1.csv"] and merged.totals == "t.csv"


def test_help_of_a_command_with_sub_commands_shows_its_options_and_sub_commands(capsys):
    with pytest.raises(SystemExit):
        main(["grade", "-h"])
    out = capsys.readouterr().out
    assert "--out" in out and "grade merge -h" in out


@pytest.mark.parametrize(
    "argv, words",
    [
        (["execute", "no_such_notebook.ipynb"], "no_such_notebook.ipynb: no such notebook"),
        (["grade", "no_such_folder", "--jobs", "0"], "--jobs must be at least 1"),
        (["grade", "merge", "m.csv", "no_such_part.csv"], "no_such_part.csv"),
        (["gradescope", "x9"], "NN is a notebook number"),
        (["gradescope", "9x"], "notebook 09x has no graded exercises"),
        (["nbgrader", "course", "99"], "99"),
    ],
)
def test_every_command_says_error_and_exits_2(argv, words, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and words in err, err


def test_every_command_has_a_module_with_its_functions():
    import importlib

    for name, command in COMMANDS.items():
        for c in [command, *command.subcommands.values()]:
            module = importlib.import_module(c.module)
            assert callable(getattr(module, c.add)) and callable(getattr(module, c.run)), name


def test_the_summary_sums_each_submission_once_per_notebook():
    from helpers.grading.cli import summary_table
    from helpers.grading.records import Row

    rows = [
        Row("a", "00", "00.relu", 1, 1, "passed", ""),
        Row("a", "00", "00.x", 0, 2, "failed", ""),
        Row("b", "00", "00.relu", 1, 1, "passed", ""),
        Row("b", "00", "00.x", 2, 2, "passed", ""),
        Row("c", "", "", 0, 0, "error", "not a notebook"),
    ]
    head, nb00, unknown = summary_table(rows).splitlines()
    assert head.split()[:4] == ["notebook", "submissions", "mean", "score"]
    assert nb00.split() == ["00", "2", "2.00", "/", "3", "(67", "%)", "3", "1", "0", "0", "0"]
    assert unknown.split() == ["?", "1", "0.00", "/", "0", "0", "0", "1", "0", "0"]
