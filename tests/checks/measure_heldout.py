"""Measure the checks on a held-out set: rejected, with a mistake code, message names the cause.

    .venv/bin/python -m tests.checks.measure_heldout [FOLDER ...] [--show]

Each FOLDER (default tests/checks/heldout) holds files in test_heldout.py's format: wrong
versions (META["cause"], META["keywords"]: regexes of which a message that names the cause
contains at least one) and correct ones (META["correct"]). A wrong version "names the cause" when
it is rejected with a mistake code and its messages match a keyword; the keywords were written
with the wrong version, before its messages were seen.
"""

import argparse
import contextlib
import io
import re
import sys
import time
from pathlib import Path

from helpers import check
from tests.checks.test_heldout import HERE, load


def measure(path: Path) -> dict:
    meta, candidate = load(path)
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        result = check(meta["exercise"], candidate)
    text = " ".join(result.messages)
    named = any(re.search(k, text, re.I) for k in meta.get("keywords", ()))
    return {
        "file": path.name,
        "exercise": meta["exercise"],
        "correct": bool(meta.get("correct")),
        "passed": result.passed,
        "mistake": result.mistake,
        "named": bool(result.mistake) and named,
        "seconds": time.perf_counter() - t0,
        "message": text[:300],
        "cause": meta.get("cause", ""),
        "source": meta.get("source", ""),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="*", type=Path, default=[HERE])
    ap.add_argument("--show", action="store_true", help="print every wrong version's message")
    args = ap.parse_args(argv)
    for folder in args.folders:
        rows = [measure(p) for p in sorted(folder.glob("*.py")) if not p.name.startswith("_")]
        wrong = [r for r in rows if not r["correct"]]
        right = [r for r in rows if r["correct"]]
        print(f"{folder}: {len(wrong)} wrong versions, {len(right)} correct ones")
        print(f"  wrong rejected:          {sum(not r['passed'] for r in wrong)}/{len(wrong)}")
        print(f"  with a mistake code:     {sum(bool(r['mistake']) for r in wrong)}/{len(wrong)}")
        print(f"  code + cause named:      {sum(r['named'] for r in wrong)}/{len(wrong)}")
        print(f"  correct ones passed:     {sum(r['passed'] for r in right)}/{len(right)}")
        slow = max(rows, key=lambda r: r["seconds"])
        print(f"  slowest check():         {slow['seconds']:.2f} s ({slow['exercise']})")
        for r in rows:
            bad = r["passed"] if not r["correct"] else not r["passed"]
            if bad or args.show or (not r["correct"] and not r["named"]):
                flag = "WRONG VERDICT" if bad else ("named" if r["named"] else "not named")
                print(f"  - {r['file']} [{flag}] {r['mistake'] or '(no code)'}")
                print(f"      cause:   {r['cause']}")
                print(f"      message: {r['message']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
