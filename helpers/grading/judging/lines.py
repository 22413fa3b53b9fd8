"""The learner's own line in the grader's feedback (issue 39, item 4): the line of the learner's
definition where one edit makes every case pass, never the edit itself.

The definition is read from the submission's cells and parsed here, never run: each edit of it
(checks/edits/localise.py) runs in the learner's kernel, on the grader's inputs at its seed and
the next (run.py's ``trial_in_kernel``), and is judged here, as the exercise is. The search
stops after :data:`BUDGET_S` and then says nothing; ``ATTN2VIT_HINTS=cause`` turns it off.
"""

from __future__ import annotations

from collections.abc import Callable

from ...checks import candidates
from ...checks.edits import localise
from ..reading.submissions import target_name

#: the search's budget for one failed exercise, in seconds: the inline check's
BUDGET_S = localise.BUDGET_S
#: one kernel call of an edited definition: longer is a loop the edit made endless
CALL_S = 5.0
#: a cell longer than this is not searched (characters)
MOST_CHARS = 20_000


def definition(run, name: str) -> localise.Own | None:
    """The last code cell that defines ``name`` at its top level, parsed (never run here)."""
    for _, cell in reversed(run.cells):
        source = cell.source
        if len(source) <= MOST_CHARS and name in source:
            own = localise.own_in_text(source.splitlines(True), name)
            if own is not None:
                return own
    return None


def point_at_line(ex, run, passes: Callable[[str], bool], budget_s: float | None = None) -> str:
    """The line where one edit of the learner's definition makes every case pass, in words (no
    edit shown), after a newline; "" where the search is off, finds none, or runs out of time."""
    budget_s = BUDGET_S if budget_s is None else budget_s
    if localise.level() == "cause" or budget_s <= 0 or ex.kind in ("trained", "question"):
        return ""
    own = definition(run, target_name(ex))
    if own is None:
        return ""
    found = localise.search(own, passes, budget_s, candidates(own))
    return "\n" + found.line_message(False, ask="") if found else ""
