"""The student-notebook generator and the block exporter."""

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from helpers.notebooks.common import (
    BEGIN,
    END,
    MarkerError,
    load_notebook,
    notebook_number,
    solution_paths,
)
from helpers.notebooks.export import export
from helpers.notebooks.student import generate, strip_code, student_notebook


def test_region_becomes_todo_and_raise_at_same_indentation():
    src = (
        "def f(x):\n    ### BEGIN SOLUTION: square it\n    y = x * x\n    return y\n"
        "    ### END SOLUTION\n"
    )
    out = strip_code(src, "nb, cell 1", "00.f")
    assert out == (
        "def f(x):\n    # TODO: square it\n"
        '    raise NotImplementedError("00.f: fill in this TODO")\n'
    )


def test_several_regions_in_one_cell_and_nested_indentation():
    src = "\n".join(
        [
            "class M:",
            "    def __init__(self):",
            f"        {BEGIN}",
            "        self.a = 1",
            f"        {END}",
            "    def forward(self, x):",
            "        if x:",
            f"            {BEGIN}",
            "            return 2",
            f"            {END}",
            "        return 0",
        ]
    )
    out = strip_code(src, "nb", None).split("\n")
    assert out[2] == "        # TODO: your code here"
    assert out[3] == '        raise NotImplementedError("fill in this TODO")'
    assert out[6] == "            # TODO: your code here"
    assert out[7] == '            raise NotImplementedError("fill in this TODO")'
    assert "self.a = 1" not in "\n".join(out) and "return 2" not in "\n".join(out)
    assert out[-1] == "        return 0"


def test_nbval_comment_lines_are_dropped():
    assert strip_code("# NBVAL_IGNORE_OUTPUT\nprint(1)", "nb", None) == "print(1)"


@pytest.mark.parametrize(
    "src, words",
    [
        (f"{BEGIN}\nx = 1\n", "line 1: ### BEGIN SOLUTION is never closed"),
        (f"x = 0\n{BEGIN}\n{BEGIN}\n{END}\n{END}", "line 3: nested"),
        (f"x = 1\n{END}", "line 2: ### END SOLUTION without"),
    ],
)
def test_bad_markers_name_file_cell_and_line(src, words):
    nb = new_notebook(cells=[new_markdown_cell("intro"), new_code_cell(src)])
    with pytest.raises(MarkerError) as err:
        student_notebook(nb, "solutions/99_x.ipynb")
    assert "solutions/99_x.ipynb, cell 2" in str(err.value) and words in str(err.value)


def test_markdown_regions_become_an_answer_placeholder():
    nb = new_notebook(cells=[new_markdown_cell(f"Why?\n{BEGIN}\nBecause.\n{END}\nEnd.")])
    out = student_notebook(nb, "x")
    assert out.cells[0].source == "Why?\n_Your answer here._\nEnd."


def test_outputs_and_counts_cleared_metadata_kept():
    cell = new_code_cell(
        f"def f():\n    {BEGIN}\n    return 1\n    {END}",
        execution_count=3,
        outputs=[nbformat.v4.new_output("stream", text="hi")],
    )
    cell.metadata["course"] = {"exercise": "00.relu"}
    out = student_notebook(new_notebook(cells=[cell]), "x")
    assert out.cells[0].outputs == [] and out.cells[0].execution_count is None
    assert out.cells[0].metadata["course"]["exercise"] == "00.relu"
    assert cell.outputs  # the solved notebook is not modified


def test_generated_notebooks_are_current_valid_and_free_of_solutions():
    assert generate(check=True) == []
    for path in solution_paths():
        solved = load_notebook(path)
        student = load_notebook(path.parent.parent / "notebooks" / path.name)
        nbformat.validate(student)
        text = "\n".join(c.source for c in student.cells)
        assert BEGIN not in text and END not in text
        for cell in solved.cells:
            lines = cell.source.split("\n")
            inside, region = False, []
            for line in lines:
                if line.strip().startswith(BEGIN):
                    inside, region = True, []
                elif line.strip().startswith(END):
                    inside = False
                    body = "\n".join(region).strip()
                    assert body not in text, (
                        f"{path.name}: solution code left in the student notebook"
                    )
                elif inside:
                    region.append(line)


def test_every_exercise_cell_names_a_known_exercise():
    from helpers.checks import EXERCISES

    seen = set()
    for path in solution_paths():
        nb = load_notebook(path)
        number = nb.metadata["course"]["notebook"]
        assert path.name.startswith(number + "_")
        for cell in nb.cells:
            ex = cell.metadata.get("course", {}).get("exercise")
            if ex:
                assert ex in EXERCISES, f"{path.name}: unknown exercise {ex}"
                assert ex.startswith(number + "."), f"{path.name}: {ex} belongs to another notebook"
                assert BEGIN in cell.source
                seen.add(ex)
            if cell.cell_type == "code":  # a trained-model exercise has only its check cell
                seen.update(
                    e
                    for e, x in EXERCISES.items()
                    if x.kind == "trained" and f'check("{e}"' in cell.source
                )
    notebooks = {notebook_number(p) for p in solution_paths()}
    missing = [e for e in EXERCISES if e.split(".")[0] in notebooks and e not in seen]
    assert not missing, (
        f"exercises with no cell (trained: no check cell) in their notebook: {missing}"
    )


def test_blocks_are_current():
    assert export(check=True) == []


def test_cli_check_reports_out_of_date(tmp_path, monkeypatch):
    (tmp_path / "solutions").mkdir()
    nb = new_notebook(cells=[new_code_cell(f"{BEGIN}\nx = 1\n{END}")])
    nb.metadata["course"] = {"notebook": "42"}
    nbformat.write(nb, str(tmp_path / "solutions" / "42_demo.ipynb"))
    assert generate(tmp_path, check=True) == ["notebooks/42_demo.ipynb is missing"]
    assert generate(tmp_path) == []
    assert generate(tmp_path, check=True) == []
    (tmp_path / "notebooks" / "99_stray.ipynb").write_text("{}")
    assert generate(tmp_path, check=True) == [
        "notebooks/99_stray.ipynb has no solved notebook in solutions/"
    ]


def test_malformed_solution_is_a_clear_error(tmp_path):
    (tmp_path / "solutions").mkdir()
    (tmp_path / "solutions" / "42_bad.ipynb").write_text("{not json")
    with pytest.raises(ValueError, match="42_bad.ipynb: not a valid notebook"):
        generate(tmp_path)


def solved_demo(tmp_path):
    (tmp_path / "solutions").mkdir()
    nb = new_notebook(cells=[new_markdown_cell("# 42"), new_code_cell(f"{BEGIN}\nx = 1\n{END}")])
    nb.metadata["course"] = {"notebook": "42"}
    nbformat.write(nb, str(tmp_path / "solutions" / "42_demo.ipynb"))


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/acme/attn.git",
        "git@github.com:acme/attn.git",
        "https://github.com/acme/attn",
    ],
)
def test_repo_opens_every_notebook_with_the_colab_badge_and_install_cell(tmp_path, url):
    solved_demo(tmp_path)
    assert generate(tmp_path, repo=url, branch="fall") == []
    nb = load_notebook(tmp_path / "notebooks" / "42_demo.ipynb")
    badge, install, title = nb.cells[:3]
    colab = "https://colab.research.google.com/github/acme/attn/blob/fall/notebooks/42_demo.ipynb"
    assert badge.cell_type == "markdown" and f"]({colab})" in badge.source
    assert "colab-badge.svg" in badge.source
    assert install.cell_type == "code" and title.source == "# 42"
    source = f"git+{url}@fall"  # what pip installs from
    assert f'SOURCE = os.environ.get("HELPERS_SOURCE") or "{source}"' in install.source
    assert 'find_spec("helpers") is None' in install.source
    # the same setting in check mode: current; without it: out of date (and back)
    assert generate(tmp_path, check=True, repo=url, branch="fall") == []
    assert generate(tmp_path, check=True, repo="") == ["notebooks/42_demo.ipynb is out of date"]


def test_install_cell_does_nothing_where_helpers_is_importable(tmp_path):
    solved_demo(tmp_path)
    generate(tmp_path, repo=str(tmp_path / "nowhere.whl"))
    nb = load_notebook(tmp_path / "notebooks" / "42_demo.ipynb")
    install = nb.cells[0]  # no badge: not on GitHub
    assert install.cell_type == "code" and str(tmp_path / "nowhere.whl") in install.source
    scope = {}
    exec(install.source, scope)  # helpers is importable here: pip is not run
    assert scope["SOURCE"] == str(tmp_path / "nowhere.whl")


def test_without_repo_no_setup_cells():
    nb = new_notebook(cells=[new_markdown_cell("# 42")])
    assert [c.source for c in student_notebook(nb, "42_demo.ipynb").cells] == ["# 42"]


def test_the_student_cell_names_what_its_check_switches_off():
    """A learner reads in the task which built-ins the check switches off (issue 29): each one
    of the exercise's ``forbid`` (as written in code; the dispatcher's names aside) is in the
    student's exercise cell, from the check itself."""
    from helpers.checks import EXERCISES

    named = 0
    for path in solution_paths():
        student = load_notebook(path.parent.parent / "notebooks" / path.name)
        for cell in student.cells:
            ex = cell.metadata.get("course", {}).get("exercise")
            if cell.cell_type != "code" or not ex:
                continue
            text = " ".join(cell.source.replace("#", " ").split())
            for dotted in EXERCISES[ex].forbid:
                *owner, last = dotted.split(".")
                if owner[0] != "aten" and owner[:2] != ["torch", "_C"]:  # not a learner's name
                    assert (f"nn.{owner[-1]}" if last == "forward" else last) in text, (ex, dotted)
                    named += 1
    assert named > 20
