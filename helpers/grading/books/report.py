"""The class report: ``--report report.html``, one self-contained page an instructor reads offline.

Per student, not per file: a student who handed in a notebook more than once counts once,
with the submission the totals count (the latest, lms.py). Per exercise the pass rate and
the most frequent named mistakes (the gradebook's ``mistake`` codes) with their counts and
the message students saw; the distribution of students' scores per notebook as a
histogram; the notebooks handed in empty (nothing implemented) and those that raised or
timed out. Plots are matplotlib PNGs embedded as base64, styles are inline: the file needs
nothing else. A section with nothing to show has no heading.
"""

from __future__ import annotations

import base64
import html
import io
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..records import Row
from .gradebook import STATUSES, exercise_order, per_submission

TOP_MISTAKES = 5


@dataclass
class ExerciseStats:
    exercise: str
    title: str
    max_points: float
    counts: Counter = field(default_factory=Counter)  # status -> rows
    mistakes: Counter = field(default_factory=Counter)  # mistake code -> rows
    examples: dict[str, Counter] = field(default_factory=dict)  # code -> message -> rows
    carried: int = 0  # passed rows whose only fault lies in a part graded on its own

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def pass_rate(self) -> float:
        return self.counts["passed"] / self.total if self.total else 0.0

    def top_mistakes(self, n: int = TOP_MISTAKES) -> list[tuple[str, int, str]]:
        """(code, count, the message most often shown with it), most frequent first."""
        ranked = sorted(self.mistakes.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
        return [(code, count, self.examples[code].most_common(1)[0][0]) for code, count in ranked]


@dataclass
class Summary:
    exercises: dict[str, ExerciseStats]
    scores: dict[str, list[float]]  # notebook -> each student's points
    max_points: dict[str, float]  # notebook -> points possible
    problems: list[Row]  # rows with status error or timeout
    submissions: int  # files graded
    students: int = 0
    empty: list[str] = field(default_factory=list)  # submissions with nothing implemented
    counted: int = 0  # submissions that count (one per student and notebook)
    similar: list | None = None  # similarity.Finding, when the code was compared


def counting(rows: list[Row], pattern=None) -> list[Row]:
    """The rows of the submissions that count: one per student and notebook (lms.py)."""
    from .lms import compute_totals

    totals = compute_totals(rows, pattern)
    keep = {s.label for per_nb in totals.students.values() for s in per_nb.values()}
    keep |= set(totals.unattributed)
    return [r for r in rows if r.submission in keep]


def summarize(all_rows: list[Row], pattern=None) -> Summary:
    from ...checks import EXERCISES
    from ..reading.students import student_of

    rows = counting(all_rows, pattern)
    order = exercise_order()
    exercises: dict[str, ExerciseStats] = {}
    per_sub = per_submission(rows)
    statuses: dict[str, set[str]] = {}
    for r in rows:
        statuses.setdefault(r.submission, set()).add(r.status if r.exercise else "error")
        if not r.exercise:
            continue
        ex = EXERCISES.get(r.exercise)
        stats = exercises.setdefault(
            r.exercise, ExerciseStats(r.exercise, ex.title if ex is not None else "", r.max_points)
        )
        stats.counts[r.status] += 1
        stats.carried += r.status == "passed" and r.message.startswith("carried forward from")
        if r.mistake and r.status == "failed":
            stats.mistakes[r.mistake] += 1
            stats.examples.setdefault(r.mistake, Counter())[r.message] += 1
    scores: dict[str, list[float]] = {}
    max_points: dict[str, float] = {}
    for nb, pts, mx in per_sub.values():
        key = nb or "?"
        scores.setdefault(key, []).append(pts)
        max_points[key] = max(max_points.get(key, 0.0), mx)
    ordered = dict(sorted(exercises.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))
    problems = sorted(
        (r for r in rows if r.status in ("error", "timeout")),
        key=lambda r: (r.submission, order.get(r.exercise, -1)),
    )
    return Summary(
        ordered,
        dict(sorted(scores.items())),
        max_points,
        problems,
        len({r.submission for r in all_rows}),
        students=len({student_of(lb, pattern) for lb in per_sub}),
        empty=sorted(lb for lb, st in statuses.items() if st == {"missing"}),
        counted=len(per_sub),
    )


# --------------------------------------------------------------------------- figures


def _png(fig) -> str:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def histogram(summary: Summary) -> str:
    return _png(histogram_figure(summary))


def histogram_figure(summary: Summary):
    """One panel per notebook: how many students got each score (whole counts on the axis)."""
    import matplotlib

    matplotlib.use("Agg")  # no display needed; the report may be made on a headless node
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    nbs = list(summary.scores)
    fig, axes = plt.subplots(
        1, max(1, len(nbs)), figsize=(4.2 * max(1, len(nbs)), 3), squeeze=False
    )
    for ax, nb in zip(axes[0], nbs):
        top = summary.max_points.get(nb, 0.0) or max(summary.scores[nb] + [1.0])
        # whole points: one bar per score; otherwise 20 bins over the range
        bins = [i - 0.5 for i in range(int(top) + 2)] if top == int(top) and top <= 40 else 20
        ax.hist(summary.scores[nb], bins=bins, range=(0, top), color="#4878a8", edgecolor="white")
        ax.set_title(f"notebook {nb}: {len(summary.scores[nb])} students")
        ax.set_xlabel(f"points (of {top:g})")
        ax.set_ylabel("students")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    return fig


def pass_rate_chart(summary: Summary) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    stats = list(summary.exercises.values())
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(stats) + 0.8))
    ax.barh([s.exercise for s in stats], [100 * s.pass_rate for s in stats], color="#59a14f")
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("passed (% of submissions)")
    return _png(fig)


# --------------------------------------------------------------------------- HTML

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; } td.n { text-align: right; } td.rate { white-space: nowrap; }
pre { white-space: pre-wrap; margin: 0; font-size: 0.85em; max-width: 50em; }
.bar { background: #59a14f; height: 0.8em; display: inline-block; }
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _message(text: str) -> str:
    # the gradebook joins a message's lines with " | " (one CSV line per row): split them again
    return f"<pre>{_e(text.replace(' | ', chr(10)))}</pre>"


def _exercise_table(summary: Summary) -> list[str]:
    out = [
        "<table id='exercises'><tr><th>exercise</th><th>points</th><th>pass rate</th>"
        + "".join(f"<th>{s}</th>" for s in STATUSES)
        + "<th>carried forward</th></tr>"
    ]
    for s in summary.exercises.values():
        pct = 100 * s.pass_rate
        out.append(
            f"<tr data-exercise='{_e(s.exercise)}' data-passed='{s.counts['passed']}' "
            f"data-total='{s.total}'><td><b>{_e(s.exercise)}</b> {_e(s.title)}</td>"
            f"<td class='n'>{s.max_points:g}</td><td class='rate'>{pct:.0f} % "
            f"<span class='bar' style='width:{pct / 20:.2f}em'></span></td>"
            + "".join(f"<td class='n'>{s.counts[st]}</td>" for st in STATUSES)
            + f"<td class='n carried'>{s.carried}</td></tr>"
        )
    return out + ["</table>"]


def _mistake_tables(summary: Summary) -> list[str]:
    out, unnamed = [], []
    for s in summary.exercises.values():
        failed = s.counts["failed"]
        if not failed:
            continue
        named = sum(s.mistakes.values())
        if not s.mistakes:  # no heading with nothing under it: one line for these
            unnamed.append(f"{_e(s.exercise)} ({failed})")
            continue
        out.append(f"<h3>{_e(s.exercise)}: {failed} failed, {named} with a named mistake</h3>")
        out.append(
            "<table class='mistakes'><tr><th>mistake</th><th>count</th>"
            "<th>the message students saw</th></tr>"
        )
        for code, count, message in s.top_mistakes():
            out.append(
                f"<tr data-mistake='{_e(code)}' data-count='{count}'><td><code>{_e(code)}"
                f"</code></td><td class='n'>{count}</td><td>{_message(message)}</td></tr>"
            )
        out.append("</table>")
    if unnamed:
        out.append(f"<p>Failed without a named mistake: {', '.join(unnamed)}.</p>")
    return out


def _problem_table(summary: Summary) -> list[str]:
    out = [
        (
            "<table id='problems'><tr><th>submission</th><th>exercise</th><th>status</th>"
            "<th>message</th></tr>"
        )
    ]
    for r in summary.problems:
        out.append(
            f"<tr data-status='{_e(r.status)}'><td>{_e(r.submission)}</td>"
            f"<td>{_e(r.exercise)}</td><td>{_e(r.status)}</td><td>{_message(r.message)}</td></tr>"
        )
    return out + ["</table>"]


def _similar_section(findings: list) -> list[str]:
    from ..judging.similarity import MIN_RARE, OPAQUE, THRESHOLD, K

    out = [
        "<h2>Similar code</h2>",
        f"<p>Per exercise, the code of two students (or a student's and the course's reference) "
        f"of which at least {THRESHOLD:.0%} of the smaller lies in the other once names, comments, "
        f"docstrings and layout are set aside ({K}-token runs of the syntax tree, the stub and "
        f"the runs many students write left out; at least {MIN_RARE} runs few others write "
        "shared). A lead to read, not a verdict: short exercises have few ways to be written.</p>",
    ]
    opaque = [f for f in findings if f.exercise == OPAQUE]
    findings = [f for f in findings if f.exercise != OPAQUE]
    if opaque:
        out.append(
            "<h3>Code the grader could not read</h3><p>These notebooks run code given as a "
            "string built at run time (exec, eval or compile of decoded or joined text), or "
            "scored on an exercise whose code may not be the one compared (its name bound by an "
            "import, an assignment, a loop, a write by name or a decorator, or nothing there "
            "but the stub): no comparison can see it. Read them.</p><table class='similar'>"
            "<tr><th>submission</th><th>where</th></tr>"
        )
        out += [f"<tr><td>{_e(f.first)}</td><td>{_e(f.second)}</td></tr>" for f in opaque]
        out.append("</table>")
    if not findings:
        return out + ["<p>No pair over the threshold.</p>"]
    by_ex: dict[str, list] = {}
    for f in findings:
        by_ex.setdefault(f.exercise, []).append(f)
    for ex, fs in sorted(by_ex.items()):
        out.append(
            f"<h3>{_e(ex)}</h3><table class='similar'><tr><th>submission</th>"
            "<th>like</th><th>share</th></tr>"
        )
        for f in sorted(fs, key=lambda f: -f.score):
            out.append(
                f"<tr data-exercise='{_e(ex)}' data-first='{_e(f.first)}' "
                f"data-second='{_e(f.second)}'><td>{_e(f.first)}</td><td>{_e(f.second)}</td>"
                f"<td class='n'>{f.score:.0%}</td></tr>"
            )
        out.append("</table>")
    return out


def render(summary: Summary, title: str = "Class report") -> str:
    parts = [
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{_e(title)}</title>",
        f"<style>{STYLE}</style></head><body><h1>{_e(title)}</h1>",
        f"<p>{summary.students} students ({summary.submissions} files; where a student handed "
        f"in a notebook more than once, the latest counts), {len(summary.exercises)} "
        "exercises.</p>",
    ]
    if summary.exercises:
        parts += [
            "<h2>Pass rate per exercise</h2>",
            *_exercise_table(summary),
            f"<img alt='pass rate per exercise' src='{pass_rate_chart(summary)}'>",
        ]
    if summary.scores:
        parts += [
            "<h2>Score distribution</h2>",
            f"<img id='histogram' alt='score histogram' src='{histogram(summary)}'>",
        ]
    mistakes = _mistake_tables(summary)
    if mistakes:
        parts += ["<h2>Most frequent mistakes</h2>", *mistakes]
    if summary.empty:
        parts += [
            f"<h2>Notebooks handed in empty ({len(summary.empty)})</h2>",
            "<p>Nothing implemented: every exercise is missing.</p><ul id='empty'>",
            *(f"<li>{_e(label)}</li>" for label in summary.empty),
            "</ul>",
        ]
    if summary.problems:
        raised = len({r.submission for r in summary.problems})
        parts += [f"<h2>Notebooks that raised or timed out ({raised})</h2>"]
        parts += _problem_table(summary)
    if summary.similar is not None:
        parts += _similar_section(summary.similar)
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_report(
    path: str | Path, rows: list[Row], title: str = "Class report", pattern=None, similar=None
) -> Summary:
    """``pattern``: a compiled ``--student-pattern`` (None: the LMSs' names, lms.py);
    ``similar``: similarity.py's findings (None: no such section)."""
    summary = summarize(rows, pattern)
    summary.similar = similar
    Path(path).write_text(render(summary, title), encoding="utf-8")
    return summary
