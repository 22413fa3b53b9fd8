# ruff: noqa: E501
"""A busy neighbour's timeout and --resume: `python -m tests.grading.round5.resume SUBS OUT [--user UID]`.

Grades SUBS (t_hog beside a slow classmate) with --timeout 12 and no cgroup (as another user),
interrupts the grader (SIGINT, as Ctrl-C) once the slow classmate's first rows are in the
gradebook, then runs the same command with --resume, and prints the classmate's rows of each.
"""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from .run import grade_command

REPO = Path(__file__).resolve().parents[3]


def main(subs: str, out: str, uid: int | None) -> None:
    out_p = Path(out)
    subprocess.run(["rm", "-rf", out])
    out_p.mkdir(parents=True)
    args = grade_command(subs, out_p, "--jobs", "2", "--seed", "555", "--timeout", "12")
    env = dict(os.environ)
    pre: list[str] = []
    if uid is not None:
        os.chown(out_p, uid, uid)
        home = out_p / "home"
        home.mkdir()
        os.chown(home, uid, uid)
        env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8", "TMPDIR": str(home)}
        pre = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all"]
    log = open(out_p / "first.txt", "w")
    p = subprocess.Popen(
        pre + args, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    t0 = time.time()
    seen = None
    while p.poll() is None and time.time() - t0 < 900:
        time.sleep(1)
        try:
            rows = list(csv.reader(open(f"{out}/grades.csv")))
        except OSError:
            continue
        slow = [r for r in rows if r and "slow" in r[0]]
        if slow:
            seen = slow
            time.sleep(2)
            os.killpg(p.pid, signal.SIGINT)  # Ctrl-C in the instructor's terminal
            break
    rc1 = p.wait()
    print("first run: rc", rc1, "after", round(time.time() - t0), "s; slow rows then:", seen)
    print(open(out_p / "first.txt").read()[-1500:])
    r2 = subprocess.run(
        pre + args + ["--resume"], cwd=REPO, env=env, capture_output=True, text=True
    )
    print("resume: rc", r2.returncode, r2.stdout[-1500:], r2.stderr[-1500:])
    for r in csv.reader(open(f"{out}/grades.csv")):
        if r and "slow" in r[0]:
            print("final:", r)


if __name__ == "__main__":
    a = sys.argv[1:]
    main(a[0], a[1], int(a[a.index("--user") + 1]) if "--user" in a else None)
