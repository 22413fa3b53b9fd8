"""Measure the learner's-line hint (issue 39, item 4) on a held-out set's single-edit versions.

    .venv/bin/python -m tests.checks.measure_localise [FOLDER] [--budget S] [--all] [--show]

For each wrong version whose META says ``single_edit`` (``--all``: every wrong version), run
``check(..., fix=True)`` as a learner would and report: rejected, a line pointed at, the fix
shown, and the check's time with the search; and for the correct alternates (META["correct"]),
the time of a passing check. ``--budget`` sets localise.BUDGET_S (default: as shipped).
"""

import argparse
import contextlib
import io
import sys
import time
from pathlib import Path

from helpers import check
from helpers.checks.edits import localise
from tests.checks.test_heldout import load

HELDOUT_L = Path(__file__).parent / "heldout_l"


def measure(path: Path) -> dict:
    meta, candidate = load(path)
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        result = check(meta["exercise"], candidate, fix=True)
    return {
        "file": path.stem,
        "exercise": meta["exercise"],
        "correct": bool(meta.get("correct")),
        "passed": result.passed,
        "line": result.line,
        "fix": result.fix,
        "seconds": time.perf_counter() - t0,
        "message": result.messages[0][:200] if result.messages else "",
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", nargs="?", type=Path, default=HELDOUT_L)
    ap.add_argument("--budget", type=float, default=None)
    ap.add_argument("--all", action="store_true", help="every wrong version, not single edits only")
    ap.add_argument("--show", action="store_true", help="print each version's line and fix")
    args = ap.parse_args(argv)
    if args.budget is not None:
        localise.BUDGET_S = args.budget
    rows = []
    for path in sorted(args.folder.glob("*.py")):
        meta, _ = load(path)
        if meta.get("correct") or meta.get("single_edit") or args.all:
            rows.append(measure(path))
            r = rows[-1]
            if args.show:
                said = r["fix"] or r["line"] or "-"
                if r["correct"]:
                    said = "passed" if r["passed"] else f"REJECTED: {r['message']}"
                print(f"{r['file']:<45} {r['seconds']:6.2f} s  {said}", flush=True)
    wrong = [r for r in rows if not r["correct"]]
    right = [r for r in rows if r["correct"]]
    rejected = [r for r in wrong if not r["passed"]]
    pointed = [r for r in rejected if r["line"]]
    print(f"{args.folder}: {len(wrong)} wrong versions ({'all' if args.all else 'single edit'})")
    print(f"  rejected:                {len(rejected)}/{len(wrong)}")
    print(f"  line pointed at:         {len(pointed)}/{len(wrong)} "
          f"({100 * len(pointed) / max(len(wrong), 1):.1f} %)")  # fmt: skip
    print(f"  fix shown:               {sum(bool(r['fix']) for r in rejected)}")
    if rejected:
        slow = max(rejected, key=lambda r: r["seconds"])
        print(f"  slowest failing check:   {slow['seconds']:.2f} s ({slow['file']})")
        print(f"  failing checks > 3 s:    {sum(r['seconds'] > 3 for r in rejected)}")
    if right:
        slow = max(right, key=lambda r: r["seconds"])
        print(f"  correct ones passed:     {sum(r['passed'] for r in right)}/{len(right)}")
        print(f"  slowest passing check:   {slow['seconds']:.2f} s ({slow['file']})")
        print(f"  passing checks > 1 s:    {sum(r['seconds'] > 1 for r in right if r['passed'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
