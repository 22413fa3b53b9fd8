"""The hints of a ★★★ exercise teach: they point at the quantity, the shape or the identity to use,
and hold at most one line of the solution's code (issue 41). The worked solution stays in
``solutions/``; a hint that quotes it hands the exercise over.

A line of the solution is "quoted" when what it computes (the right-hand side of an assignment,
each part of a returned tuple, or the line) appears in a code span of the hints (`` `...` ``), read
as tokens with every name of a variable as one placeholder (``weights @ G`` quotes
``w @ grad_out``), ``Xᵀ`` as ``X.transpose(-2, -1)``, and ``dim=`` and ``math.`` left out.
Attributes, keyword arguments and the modules keep their names. Parts of fewer than six tokens
(``acc / l``) are too short to count.
"""

from __future__ import annotations

import builtins
import io
import keyword
import re
import textwrap
import tokenize

import pytest

from helpers.notebook_files import load_notebook, solution_paths

SOLVED = solution_paths()
MIN_TOKENS = 6
MAX_LINES = 1
# names that read the same in a hint and in a solution: modules and the language's own
KEPT = {"torch", "F", "nn", "self", *dir(builtins), *keyword.kwlist}
HEADING = re.compile(r"^### Exercise (\S+) — .*★★★", re.MULTILINE)
DETAILS = re.compile(r"<details>(.*?)</details>", re.DOTALL)
SPAN = re.compile(r"`([^`\n]+)`")
SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING}


def _tokens(code: str) -> list[tokenize.TokenInfo]:
    code = code.replace("ᵀ", ".transpose(-2, -1)")  # the notation of the series' formulas
    try:
        return [
            t for t in tokenize.generate_tokens(io.StringIO(code).readline) if t.type not in SKIP
        ]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []


def _normal(tokens: list[tokenize.TokenInfo]) -> str:
    """The tokens as one string: names of variables as ``_``; ``dim=`` and ``math.`` dropped."""
    out: list[str] = []
    depth, skip = 0, 0
    for n, t in enumerate(tokens):
        after = tokens[n + 1].string if n + 1 < len(tokens) else ""
        depth += t.string in ("(", "[", "{")
        depth -= t.string in (")", "]", "}")
        if skip or (t.string, after) in (("dim", "="), ("math", ".")):
            skip = 0 if skip else 1
            continue
        named = t.type != tokenize.NAME or t.string in KEPT or (bool(out) and out[-1] == ".")
        named = named or (after == "=" and depth > 0)  # a keyword argument
        out.append(t.string if named else "_")
    return " ".join(s for s in out if s.strip())


def _logical_lines(code: str) -> list[list[tokenize.TokenInfo]]:
    lines, line = [], []
    for t in _tokens(code):
        if t.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            lines.append(line) if line else None
            line = []
        else:
            line.append(t)
    return lines


def _parts(line: list[tokenize.TokenInfo]) -> list[list[tokenize.TokenInfo]]:
    """What a line computes: after ``return`` or a top-level ``=`` (``+=`` ...), split at its
    top-level commas; a leading minus dropped (``-x.gather(...)`` quotes ``x.gather(...)``)."""
    depth, parts, part = 0, [], []
    for t in line:
        depth += t.string in ("(", "[", "{")
        depth -= t.string in (")", "]", "}")
        top = depth == 0 and t.type == tokenize.OP
        if top and t.string.endswith("=") and t.string not in ("==", "<=", ">=", "!="):
            parts, part = [], []  # what came before was the target
        elif top and t.string == ",":
            parts.append(part)
            part = []
        elif not (t.string == "return" and not parts and not part):
            part.append(t)
    parts.append(part)
    return [p[1:] if p and p[0].string == "-" else p for p in parts]


def quoted_lines(solution: str, hints: str) -> list[str]:
    """The parts of ``solution``'s lines (the code between its markers) quoted in ``hints``."""
    body = solution.split("### BEGIN SOLUTION", 1)[1].split("\n", 1)[1]
    body = textwrap.dedent(body.split("### END SOLUTION", 1)[0])
    spans = [_normal(_tokens(span)) for span in SPAN.findall(hints)]
    found = []
    for line in _logical_lines(body):
        for part in _parts(line):
            code = _normal(part)
            if len(code.split()) >= MIN_TOKENS and any(code in span for span in spans):
                found.append(" ".join(t.string for t in part))
    return found


def stretch_exercises() -> list[tuple[str, str, str]]:
    """(id, hints, solution cell) of every ★★★ exercise of the solved notebooks."""
    found = []
    for path in SOLVED:
        cells = load_notebook(path).cells
        for n, cell in enumerate(cells):
            if cell.cell_type != "markdown":
                continue
            for match in HEADING.finditer(cell.source):
                ex_id = match.group(1)
                hints = "\n".join(DETAILS.findall(cell.source[match.start() :]))
                code = next(
                    c.source
                    for c in cells[n:]
                    if c.get("metadata", {}).get("course", {}).get("exercise") == ex_id
                )
                found.append((ex_id, hints, code))
    return found


EXERCISES = stretch_exercises()


def test_every_notebook_has_a_stretch_exercise_with_hints():
    assert len({ex_id.split(".")[0] for ex_id, _, _ in EXERCISES}) == len(SOLVED), EXERCISES
    assert all(hints.strip() for _, hints, _ in EXERCISES)


@pytest.mark.parametrize("ex_id, hints, code", EXERCISES, ids=[e[0] for e in EXERCISES])
def test_stretch_hints_hold_at_most_one_line_of_the_solution(ex_id, hints, code):
    quoted = quoted_lines(code, hints)
    assert len(quoted) <= MAX_LINES, (
        f"{ex_id}: its hints quote {len(quoted)} lines of its solution; point at the quantity, "
        "the shape or the identity instead:\n  " + "\n  ".join(quoted)
    )


SOLUTION = """def top_p_filter(logits, p):
    ### BEGIN SOLUTION: sort, cumulative probability, remove past p, unsort
    sorted_logits, indices = logits.sort(dim=-1, descending=True)
    probs = sorted_logits.softmax(dim=-1)
    before = probs.cumsum(dim=-1) - probs  # probability of the tokens before each one
    sorted_logits = sorted_logits.masked_fill(before >= p, float("-inf"))
    return torch.empty_like(logits).scatter(-1, indices, sorted_logits)  # back in place
    ### END SOLUTION
"""


@pytest.mark.parametrize(
    "hints, expected",
    [
        # the hints 07b.top_p_filter had before issue 41: four lines of the solution
        (
            "`sorted_logits, indices = logits.sort(dim=-1, descending=True)`; `probs = "
            "sorted_logits.softmax(-1)`; the mass before each token is `probs.cumsum(-1) - probs`."
            " Unsort: `torch.empty_like(logits).scatter(-1, indices, filtered_sorted)`",
            4,
        ),
        # renamed variables still quote the line
        ("`p_sorted.cumsum(-1) - p_sorted`", 1),
        # pointing at the operation is not quoting it
        ("an exclusive cumulative sum: `cumsum` minus each token's own probability", 0),
        ("`logits.sort(descending=True)` returns the values and where they came from", 0),
    ],
)
def test_the_rule_finds_quoted_lines(hints, expected):
    assert len(quoted_lines(SOLUTION, hints)) == expected, quoted_lines(SOLUTION, hints)


def test_the_rule_finds_the_old_attention_backward_hint():
    """Notebook 02's hint 3 before issue 41, in the notation of the formulas (ᵀ): "the whole
    solution", as the issue said."""
    old = (
        "`grad_v = weightsᵀ @ G`, `grad_weights = G @ vᵀ`, then `grad_scores` (hint 2), then "
        "`grad_q = grad_scores @ k / sqrt(d_k)` and `grad_k = grad_scoresᵀ @ q / sqrt(d_k)`; hint "
        "2: `grad_scores = weights * (grad_weights - (grad_weights * weights).sum(-1, "
        "keepdim=True))`"
    )
    code = next(code for ex_id, _, code in EXERCISES if ex_id == "02.attention_backward")
    assert len(quoted_lines(code, old)) >= 3, quoted_lines(code, old)
