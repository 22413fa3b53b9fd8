"""Runtime budget of the solved notebooks (``python -m helpers bench``, ``make bench``).

Budgets, on a 2-core CPU: every notebook under 60 s, except 09 under 90 s; the whole series
under 5 minutes. ``bench`` runs each notebook top to bottom in a fresh kernel (kernel start
included, outputs not written back) and records its wall time and the peak resident memory of
the kernel process (``getrusage`` inside the kernel), then writes ``bench/bench.md`` and
``bench/bench.json``.

The test suite does not run the notebooks twice: the root ``conftest.py`` feeds nbval's own
per-cell durations to :class:`NbvalTimes`, and the run fails when a notebook takes more than
``NOISE_FACTOR`` times its budget.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from .common import notebook_number
from .kernel import run_fresh

BUDGET_S = 60.0
BUDGETS_S = {"09": 90.0}  # by notebook number
SERIES_BUDGET_S = 300.0
NOISE_FACTOR = 2.0  # the suite fails past this multiple of a budget

_MAXRSS_TAG = "__bench_maxrss__"
_MAXRSS_CELL = (
    "import resource as _r, sys as _s\n"
    f"print('{_MAXRSS_TAG}', _r.getrusage(_r.RUSAGE_SELF).ru_maxrss"
    " * (1 if _s.platform == 'darwin' else 1024))"
)


OPEN_BUDGET_S = 30.0  # a worked solution of open exercises (solutions/open/NN_open_exercises)


def budget_for(path: str | Path) -> float:
    """Seconds allowed for one notebook."""
    if Path(path).parent.name == "open":
        return OPEN_BUDGET_S
    return BUDGETS_S.get(notebook_number(path) or "", BUDGET_S)


def over_budget(seconds: dict[str, float], factor: float = 1.0) -> list[str]:
    """One message per notebook whose time exceeds ``factor`` times its budget."""
    problems = []
    for path, s in sorted(seconds.items()):
        limit = factor * budget_for(path)
        if s > limit:
            times = f"{factor:g} x " if factor != 1 else ""
            problems.append(
                f"{path}: {s:.1f} s, over {times}its {budget_for(path):.0f} s budget"
                f" ({limit:.0f} s)"
            )
    return problems


class NbvalTimes:
    """Wall time per notebook from pytest reports (setup + call + teardown of every cell).

    nbval starts the kernel in the first cell's setup, so kernel start is included.
    """

    def __init__(self):
        self.seconds: dict[str, float] = {}

    def add(self, nodeid: str, duration: float) -> None:
        path, sep, _ = nodeid.partition("::")
        if sep and path.endswith(".ipynb"):
            self.seconds[path] = self.seconds.get(path, 0.0) + duration

    def problems(self, factor: float = NOISE_FACTOR) -> list[str]:
        return over_budget(self.seconds, factor)

    def summary(self) -> list[str]:
        return [
            f"{path}: {s:.1f} s (budget {budget_for(path):.0f} s)"
            for path, s in sorted(self.seconds.items())
        ]


@dataclass
class BenchRow:
    notebook: str
    seconds: float
    peak_mib: float | None
    budget_s: float
    error: str | None = None

    @property
    def within_budget(self) -> bool:
        return self.error is None and self.seconds <= self.budget_s


def measure(path: Path, timeout: int = 600, kernel: str = "python3") -> BenchRow:
    """Run ``path`` in a fresh kernel (not saved); its seconds and the kernel's peak memory."""
    import nbformat

    nb = nbformat.read(str(path), as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(_MAXRSS_CELL))
    seconds, exc = run_fresh(nb, path.parent, timeout, kernel)
    error = None
    if exc is not None:  # a failing cell or a timeout: report it, bench the others
        error = f"{type(exc).__name__}: " + (str(exc).strip().splitlines() or [""])[-1][:200]
    text = "".join(out.get("text", "") for out in nb.cells[-1].get("outputs", []))
    m = re.search(_MAXRSS_TAG + r" (\d+)", text)
    peak = int(m.group(1)) / 2**20 if m else None
    return BenchRow(path.name, seconds, peak, budget_for(path), error)


def machine() -> dict:
    info = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
    }
    try:
        import torch

        info["torch"] = torch.__version__
        info["torch_threads"] = torch.get_num_threads()
    except ImportError:
        pass
    return info


def markdown(rows: list[BenchRow], info: dict) -> str:
    total = sum(r.seconds for r in rows)
    lines = [
        "| notebook | seconds | budget (s) | peak kernel memory (MiB) | within budget |",
        "| --- | ---: | ---: | ---: | :---: |",
    ]
    for r in rows:
        peak = "?" if r.peak_mib is None else f"{r.peak_mib:.0f}"
        verdict = "**error**" if r.error else "yes" if r.within_budget else "**no**"
        lines.append(f"| {r.notebook} | {r.seconds:.1f} | {r.budget_s:.0f} | {peak} | {verdict} |")
    lines.append(
        f"| **all** | **{total:.1f}** | {SERIES_BUDGET_S:.0f} | | "
        f"{'yes' if total <= SERIES_BUDGET_S else '**no**'} |"
    )
    lines.append("")
    lines.append(
        f"Fresh kernel per notebook, kernel start included; measured {info['date']} on "
        f"{info['cpus']} CPUs, {info['platform']}, Python {info['python']}"
        + (f", torch {info['torch']}" if "torch" in info else "")
        + "."
    )
    return "\n".join(lines) + "\n"


def measure_all(paths: list[Path], out_dir: Path | None, timeout: int = 600) -> list[BenchRow]:
    rows = []
    for path in paths:
        row = measure(path, timeout=timeout)
        rows.append(row)
        peak = "?" if row.peak_mib is None else f"{row.peak_mib:.0f} MiB"
        flag = (
            f"  ERROR {row.error}"
            if row.error
            else ""
            if row.within_budget
            else f"  OVER its {row.budget_s:.0f} s budget"
        )
        print(f"{path}: {row.seconds:.1f} s, peak {peak}{flag}", flush=True)
    info = machine()
    total = sum(r.seconds for r in rows)
    print(f"all: {total:.1f} s (series budget {SERIES_BUDGET_S:.0f} s)")
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "bench.md").write_text(markdown(rows, info))
        data = {
            "machine": info,
            "series_budget_s": SERIES_BUDGET_S,
            "total_seconds": total,
            "notebooks": [{**asdict(r), "within_budget": r.within_budget} for r in rows],
        }
        (out_dir / "bench.json").write_text(json.dumps(data, indent=1) + "\n")
        print(f"wrote {out_dir / 'bench.md'} and {out_dir / 'bench.json'}")
    return rows


def bench(paths: list[Path], out_dir: Path | None, timeout: int, strict: bool) -> int:
    """Exit status: 1 with ``strict`` when a notebook or the series is over budget."""
    rows = measure_all(paths, out_dir, timeout)
    over = [r.notebook for r in rows if not r.within_budget]  # errors included
    if sum(r.seconds for r in rows) > SERIES_BUDGET_S:
        over.append("the whole series")
    if over:
        print("over budget or failed: " + ", ".join(over), file=sys.stderr)
    return 1 if strict and over else 0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", type=Path)
    p.add_argument("--out", type=Path, default=Path("bench"), help="folder for bench.md/.json")
    p.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    p.add_argument("--strict", action="store_true", help="exit 1 when over a budget")


def run(args: argparse.Namespace) -> int:
    return bench(args.paths, args.out, args.timeout, args.strict)
