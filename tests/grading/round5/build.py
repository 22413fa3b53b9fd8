# ruff: noqa: E501
"""Write the round-5 batches: `python -m tests.grading.round5.build OUT` (OUT/<batch>/...).

Honest classmates: carol (the solved notebook 00, outputs stripped), dave (a plain notebook with
a correct relu), erin (plain, relu and pairwise_sq_dists her own way, the question answered).
In each batch an attacker's label sorts before some classmates' (`a1_m_...` then `a1_z_carol`).
`OUT/<batch>_alone/` holds the same classmates alone, under the same labels, to compare rows.
"""

from __future__ import annotations

import io
import json
import shutil
import sys
import zipfile
from pathlib import Path

from ..builders import load, plain_notebook, write
from . import attacks as A

KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


def carol():
    return load("00")


def dave():
    return plain_notebook("import torch", "def relu(x): return x * (x > 0)", notebook="00")


def erin():
    return plain_notebook(
        "import torch",
        "def relu(x):\n    return x * (x > 0).to(x.dtype)\n",
        A.HONEST_PAIRWISE_ALT,
        "q_check_verdict = 'b'\n",
        notebook="00",
    )


HONEST = {"carol": carol, "dave": dave, "erin": erin}


def attack_nb(name: str):
    return plain_notebook(*A.ATTACKS[name], notebook="00")


def raw_nb(cells: list, metadata: dict | None = None, minor: int = 4) -> dict:
    return {
        "cells": cells,
        "metadata": metadata
        if metadata is not None
        else {"kernelspec": KERNELSPEC, "course": {"notebook": "00"}},
        "nbformat": 4,
        "nbformat_minor": minor,
    }


def code(src) -> dict:
    return {
        "cell_type": "code",
        "execution_count": None,
        "metadata": {},
        "outputs": [],
        "source": src,
    }


def raw_notebooks() -> dict[str, str]:
    """Odd notebook JSON, as text."""
    out = {}
    out["j_surrogates"] = json.dumps(
        raw_nb(
            [
                code("import torch\n"),
                code(A.SURROGATE_RELU),
                code(A.SURROGATE_CELL),
                code(A.NUL_PAIRWISE),
            ]
        )
    )
    body = json.dumps([code("import torch\n"), code(A.WRONG_RELU)])
    out["j_dupkeys"] = (
        '{"metadata": {"course": {"notebook": "00"}, "kernelspec": ' + json.dumps(KERNELSPEC) + "},"
        ' "nbformat": 4, "nbformat_minor": 4, "cells": ' + body + ","
        ' "metadata": {"course": {"notebook": "09"}, "kernelspec": ' + json.dumps(KERNELSPEC) + "}}"
    )
    out["j_v3"] = json.dumps(
        {
            "nbformat": 3,
            "nbformat_minor": 0,
            "metadata": {"name": "", "course": {"notebook": "00"}},
            "worksheets": [
                {
                    "metadata": {},
                    "cells": [
                        {
                            "cell_type": "code",
                            "language": "python",
                            "outputs": [],
                            "collapsed": False,
                            "input": "import torch\ndef relu(x):\n    return x.abs()\n",
                        }
                    ],
                }
            ],
        }
    )
    out["j_odd_types"] = json.dumps(
        raw_nb(
            [
                code(["import torch\n", 5]),
                "a string where a cell should be",
                {"cell_type": "code"},
                {"cell_type": "code", "source": None, "outputs": "x", "metadata": []},
                {
                    "cell_type": "raw",
                    "metadata": {},
                    "source": "def relu(x):\n    return x * (x > 0)\n",
                },
                code(A.WRONG_RELU),
                {
                    "cell_type": "code",
                    "metadata": {"course": {"exercise": ["00.relu"]}},
                    "outputs": [],
                    "source": "q_check_verdict = 'b'\n",
                    "execution_count": "1",
                },
            ]
        )
    )
    out["j_cells_dict"] = json.dumps(raw_nb({"0": code(A.WRONG_RELU)}))
    out["j_huge_code"] = json.dumps(
        raw_nb([code("import torch\n"), code(A.WRONG_RELU), code(A.huge_pairwise(1_200_000))])
    )
    return out


def put(folder: Path, label: str, nb) -> None:
    path = folder / label
    if isinstance(nb, str):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(nb, encoding="ascii")
    else:
        write(nb, path)


def batch(out: Path, name: str, attackers: list[tuple[str, object]], honest: list[tuple[str, str]]):
    """attackers: (label, notebook); honest: (label, which classmate). Also OUT/<name>_alone."""
    folder, alone = out / name, out / f"{name}_alone"
    for f in (folder, alone):
        shutil.rmtree(f, ignore_errors=True)
        f.mkdir(parents=True)
    for label, nb in attackers:
        put(folder, label, nb)
    for label, who in honest:
        put(folder, label, HONEST[who]())
        put(alone, label, HONEST[who]())


def interleave(prefix_attacks: list[str], honest_cycle=("carol", "dave", "erin")):
    attackers, honest = [], []
    for i, name in enumerate(prefix_attacks, 1):
        attackers.append((f"a{i:02d}_{name}_00.ipynb", attack_nb(name)))
        who = honest_cycle[(i - 1) % len(honest_cycle)]
        honest.append((f"a{i:02d}_z_{who}/00_welcome.ipynb", who))
    return attackers, honest


def moodle_zip(path: Path, honest_only: bool = False) -> None:
    """A Moodle download: Mallory's folder holds files named like Alice's in Canvas and Moodle."""
    files = {
        "Alice Lee_654321_assignsubmission_file_/00_welcome.ipynb": carol(),
        "Bob Ray_222222_assignsubmission_file_/00_welcome.ipynb": dave(),
        "Mallory Evil_111111_assignsubmission_file_/alicelee_654321_999999_00_welcome.ipynb": plain_notebook(
            "import torch", A.WRONG_RELU, notebook="00"
        ),
        "Mallory Evil_111111_assignsubmission_file_/Alice Lee_654321_assignsubmission_file_00.ipynb": plain_notebook(
            "import torch", A.WRONG_RELU, notebook="00"
        ),
        "Trudy Tee_333333_assignsubmission_file_Alice Lee_654321_assignsubmission_file_/00.ipynb": plain_notebook(
            "import torch", A.WRONG_RELU, notebook="00"
        ),
    }
    _zip(path, files, honest_only)


def canvas_zip(path: Path, honest_only: bool = False) -> None:
    """A Canvas download: Mallory's own file name is a Canvas name of Alice's, later upload."""
    files = {
        "alicelee_654321_700001_00_welcome.ipynb": carol(),
        "bobray_222222_700002_00_welcome.ipynb": dave(),
        "mallory_111111_700003_alicelee_654321_999999_00_welcome.ipynb": plain_notebook(
            "import torch", A.WRONG_RELU, notebook="00"
        ),
        "mallory_111111_700004_alicelee_LATE_654321_999998_00_welcome-9.ipynb": plain_notebook(
            "import torch", A.WRONG_RELU, notebook="00"
        ),
    }
    _zip(path, files, honest_only)


def _zip(path: Path, files: dict, honest_only: bool) -> None:
    """The files as a zip (``honest_only``: Alice's and Bob's alone)."""
    import nbformat

    honest = ("Alice", "Bob", "alice", "bob")
    files = {k: v for k, v in files.items() if not honest_only or k.startswith(honest)}

    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as z:
        for name, nb in files.items():
            buf = io.StringIO()
            nbformat.write(nb, buf)
            z.writestr(name, buf.getvalue())


def build(out: Path) -> None:
    # memory: run with --memory 1 (as root with cgroups, and as another user without)
    batch(
        out,
        "memory",
        *interleave(
            [
                "m_sysv_shm",
                "m_devshm_files",
                "m_page_tables",
                "m_socket_buffers",
                "m_pipe_buffers",
                "m_dentries",
                "m_thread_stacks",
                "m_nondumpable",
            ]
        ),
    )
    batch(out, "epoll", *interleave(["u_epoll"]))
    # extra classmates after the epoll attacker, graded while it holds the watches
    for i, who in enumerate(("dave", "erin", "carol"), 2):
        put(out / "epoll", f"a01_z{i}_{who}_00.ipynb", HONEST[who]())
        put(out / "epoll_alone", f"a01_z{i}_{who}_00.ipynb", HONEST[who]())
    batch(out, "files", *interleave(["u_files"]))
    for z in ("z_memwrite", "z_sigstop", "z_sched_idle", "z_autogroup"):
        att, hon = interleave([z])
        hon += [
            (f"a01_z{i}_{w}_00.ipynb", w)
            for i, w in enumerate(("dave", "erin", "carol", "dave"), 2)
        ]
        batch(out, z, att, hon)
    # time: --timeout 10 --notebook-timeout 25
    batch(out, "time", *interleave(["t_immortal", "t_kill_own_kernel"]))
    # resume: t_hog beside a classmate whose cell is slow on a busy machine (see run notes)
    att, hon = interleave(["t_hog"])
    batch(out, "resume", att, hon)
    slow = plain_notebook(
        "import torch\nt = 0\nfor i in range(30_000_000):\n    t += i\n",
        "def relu(x): return x * (x > 0)",
        notebook="00",
    )
    for f in ("resume", "resume_alone"):
        put(out / f, "a01_y_slow_00.ipynb", slow)
    # outputs: run under `script` (a terminal), with --report and --totals
    batch(out, "output", *interleave(["o_raw_fds", "o_markdown", "o_huge_ename", "o_proc_recon"]))
    batch(out, "output2", *interleave(["o_backticks"]))
    # readers, labels, similarity, judge: with --report and --totals (one copy of each classmate:
    # the similarity report discounts code more than 3 students write)
    att = [
        (f"a{i:02d}_{name}_00.ipynb", attack_nb(name))
        for i, name in enumerate(
            ["s_helper", "s_exec_literal", "g_empty", "g_meta", "g_q_space"], 1
        )
    ]
    for i, (name, text) in enumerate(raw_notebooks().items(), len(att) + 1):
        att.append((f"a{i:02d}_{name}_00.ipynb", text))
    wrong = plain_notebook("import torch", A.WRONG_RELU, notebook="00")
    att.append(("a20_<img src=x onerror=alert(1)>_00.ipynb", wrong))
    att.append(('a21_\uff1dHYPERLINK("https:__r5.example")_00.ipynb', wrong))
    batch(
        out,
        "readers",
        att,
        [
            ("zz_carol/00_welcome.ipynb", "carol"),
            ("zz_dave_00.ipynb", "dave"),
            ("zz_erin_00.ipynb", "erin"),
        ],
    )
    # feedback file names: `/` is `__`, other characters `_`
    fb, fba = out / "names", out / "names_alone"
    for f in (fb, fba):
        shutil.rmtree(f, ignore_errors=True)
    put(fb, "alice__00_welcome.ipynb", plain_notebook("import torch", A.WRONG_RELU, notebook="00"))
    put(fb, "bob/00_welcome.ipynb", plain_notebook("import torch", A.WRONG_RELU, notebook="00"))
    put(
        fb,
        "a`<img src=x onerror=alert(1)>`_00.ipynb",
        plain_notebook("import torch", A.WRONG_RELU, notebook="00"),
    )
    for f in (fb, fba):
        put(f, "alice/00_welcome.ipynb", carol())
        put(f, "bob/00 welcome.ipynb", dave())
    # LMS downloads
    for f in ("lms", "lms_alone"):
        shutil.rmtree(out / f, ignore_errors=True)
    moodle_zip(out / "lms" / "moodle.zip")
    canvas_zip(out / "lms" / "canvas.zip")
    moodle_zip(out / "lms_alone" / "moodle.zip", honest_only=True)
    canvas_zip(out / "lms_alone" / "canvas.zip", honest_only=True)


if __name__ == "__main__":
    build(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/r5/b"))
