"""A kernel's environment: its folder as HOME and TMPDIR, the thread count, the ``helpers`` it
imports, and nothing of the host's but what a GPU needs (``KEEP_ENV``)."""

from __future__ import annotations

import os
import sys

import helpers

# the only variables of the grader's passed on: what torch may need to find a GPU's libraries
# and to pick the GPU (and Windows' own). Nothing else of the host's (its PATH, PYTHONPATH,
# virtual environment, locale, terminal): the kernel's PATH is the Python's own folder and the
# system's, its locale C.UTF-8, its clock UTC
KEEP_ENV = ("LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "SYSTEMROOT")
SYSTEM_PATH = ("/usr/local/bin", "/usr/bin", "/bin")


def kernel_env(home: str, threads: int, package_root: str | None = None) -> dict[str, str]:
    """The kernel's environment; ``package_root``: the folder whose ``helpers`` it imports
    (default: this grader's own)."""
    env = {k: v for k, v in os.environ.items() if k in KEEP_ENV}
    tmp = os.path.join(home, "tmp")
    os.makedirs(tmp, exist_ok=True)
    mpl = os.path.join(home, ".matplotlib")
    os.makedirs(mpl, exist_ok=True)
    pythons = [os.path.dirname(sys.executable), os.path.dirname(os.path.realpath(sys.executable))]
    env.update(
        PATH=os.pathsep.join(dict.fromkeys([*pythons, *SYSTEM_PATH])),
        LANG="C.UTF-8",
        LC_ALL="C.UTF-8",
        TZ="UTC",
        HOME=home,
        USERPROFILE=home,
        TMPDIR=tmp,
        TEMP=tmp,
        TMP=tmp,
        MPLCONFIGDIR=mpl,
        IPYTHONDIR=os.path.join(home, ".ipython"),
        JUPYTER_CONFIG_DIR=os.path.join(home, ".jupyter"),
        JUPYTER_DATA_DIR=os.path.join(home, ".jupyter-data"),
        MPLBACKEND="agg",  # no PNG rendering: figures are not graded
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONUNBUFFERED="1",
        PYDEVD_DISABLE_FILE_VALIDATION="1",
        # getpass.getuser() reads these first: a kernel may run as a uid with no account (--user,
        # a container's), and torch < 2.13 then fails to import torch._dynamo (KeyError from
        # pwd, then "Artifact ... already registered" at every later use; pytorch#184208)
        USER="learner",
        LOGNAME="learner",
        OMP_NUM_THREADS=str(threads),
        MKL_NUM_THREADS=str(threads),
        # the kernel imports the helpers this grader runs (and the sandbox shows), also where
        # they come from PYTHONPATH rather than the environment (Gradescope's bundle)
        PYTHONPATH=package_root
        or os.path.dirname(os.path.dirname(os.path.realpath(helpers.__file__))),
    )
    return env
