# ruff: noqa: E501
"""Grade one batch and watch the host: `python -m tests.grading.round5.run NAME SUBMISSIONS OUTDIR
[--user UID] [--tty] -- GRADER-ARGS...`.

Writes OUTDIR/NAME/{grades.csv, fb/, totals.csv, report.html, console.txt, watch.json}: the exit
status and wall time, the largest host deltas seen every 0.25 s (/proc/meminfo, open files,
/tmp's disk), the grader's largest RSS, the processes left afterwards (bwrap, kernels, anything
of UID) and the files named like the attacks' (r5_*, R5*) outside OUTDIR.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
KEYS = ("MemAvailable", "Shmem", "PageTables", "Slab", "SUnreclaim", "KernelStack")


def meminfo() -> dict:
    d = {}
    for line in open("/proc/meminfo"):
        k, v = line.split(":")
        d[k] = int(v.split()[0]) // 1024
    out = {k: d[k] for k in KEYS}
    out["files_open"] = int(open("/proc/sys/fs/file-nr").read().split()[0])
    st = os.statvfs("/tmp")
    out["tmp_used_MiB"] = (st.f_blocks - st.f_bfree) * st.f_frsize >> 20
    return out


def tree_rss(root: int) -> int:
    """RSS (MiB) of root and its descendants outside any sandbox (the grader's own processes)."""
    kids: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    cmd: dict[int, str] = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            st = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
            kids.setdefault(int(st[1]), []).append(int(p))
            rss[int(p)] = int(st[21]) * 4096 >> 20
            cmd[int(p)] = open(f"/proc/{p}/cmdline", "rb").read()[:60].decode("utf-8", "replace")
        except (OSError, IndexError):
            pass
    total, todo = 0, [root]
    while todo:
        p = todo.pop()
        if "bwrap" in cmd.get(p, ""):
            continue  # the sandboxes' memory is the attacks', measured by meminfo
        total += rss.get(p, 0)
        todo += kids.get(p, [])
    return total


def leftovers(uid: int | None, before: set[int]) -> list[str]:
    out = []
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) in before:
            continue
        try:
            c = (
                open(f"/proc/{p}/cmdline", "rb")
                .read()
                .replace(b"\0", b" ")
                .decode("utf-8", "replace")
            )
            owner = os.stat(f"/proc/{p}").st_uid
        except OSError:
            continue
        ours = "/work/wt-attacks" in c or "/tmp/r5" in c or "r5_" in c  # not other sessions'
        if ours or (uid is not None and owner == uid):
            out.append(f"{p} uid={owner} {c[:150]}")
    return out


def grade_command(subs: str, out: Path, *options: str) -> list[str]:
    """``python -m helpers grade SUBS`` into OUT (grades.csv, fb/), with ``options``."""
    grades, feedback = str(out / "grades.csv"), str(out / "fb")
    head = [sys.executable, "-m", "helpers", "grade", subs, "--out", grades]
    return [*head, "--feedback", feedback, "--no-progress", *options]


def main(argv: list[str]) -> int:
    sep = argv.index("--")
    opts, grader = argv[:sep], argv[sep + 1 :]
    name, subs, outdir = opts[0], opts[1], Path(opts[2])
    uid = int(opts[opts.index("--user") + 1]) if "--user" in opts else None
    out = outdir / name
    subprocess.run(["rm", "-rf", str(out)])
    out.mkdir(parents=True)
    marker = out / ".start"
    marker.touch()
    time.sleep(1)
    args = grade_command(subs, out, *grader)
    args = [a.replace("{out}", str(out)) for a in args]
    env = dict(os.environ)
    if uid is not None:
        os.chown(out, uid, uid)
        home = outdir / f"home{uid}"
        home.mkdir(exist_ok=True)
        os.chown(home, uid, uid)
        env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8", "TMPDIR": str(home)}
        args = [
            "setpriv",
            f"--reuid={uid}",
            f"--regid={uid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            *args,
        ]
    if "--tty" in opts:
        args = ["script", "-qfec", shlex.join(args), str(out / "console.txt")]
    before = {int(p) for p in os.listdir("/proc") if p.isdigit()}
    start = meminfo()
    peaks = dict.fromkeys(start, (0, 0.0))
    grss = [0]
    t0 = time.time()
    console = open(out / "console.txt", "ab") if "--tty" not in opts else subprocess.DEVNULL
    proc = subprocess.Popen(args, cwd=REPO, env=env, stdout=console, stderr=subprocess.STDOUT)
    done = threading.Event()

    def watch():
        while not done.is_set():
            m = meminfo()
            for k, v in m.items():
                d = start[k] - v if k == "MemAvailable" else v - start[k]
                if d > peaks[k][0]:
                    peaks[k] = (d, round(time.time() - t0, 1))
            grss[0] = max(grss[0], tree_rss(proc.pid))
            time.sleep(0.25)

    th = threading.Thread(target=watch, daemon=True)
    th.start()
    rc = proc.wait()
    wall = round(time.time() - t0, 1)
    done.set()
    th.join()
    time.sleep(3)
    left = leftovers(uid, before)
    found = subprocess.run(
        f"find / -xdev \\( -name 'r5_*' -o -name 'R5*' -o -name 'r5d*' \\) -newer {shlex.quote(str(marker))} "
        f"-not -path {shlex.quote(str(outdir))}'/*' -not -path '/proc/*' -not -path '/work/*/tests/*' "
        "-not -path '/tmp/r5/b/*' 2>/dev/null | head -20; ls /dev/shm | head",
        shell=True,
        capture_output=True,
        text=True,
    ).stdout.split("\n")
    report = {
        "rc": rc,
        "wall_s": wall,
        "host_peaks_MiB_at_s": peaks,
        "grader_rss_MiB_max": grss[0],
        "processes_left": left,
        "files_left": [f for f in found if f],
        "args": args,
    }
    (out / "watch.json").write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
