"""A kernel's environment: its folder as HOME and TMPDIR, a few variables of the grader's
(no secrets inherited), the thread count, and the ``helpers`` it imports."""

from __future__ import annotations

import os

import helpers

# variables passed on to the kernel; everything else in the grader's environment is dropped
KEEP_ENV = (
    "PATH",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "PYTHONPATH",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "LD_LIBRARY_PATH",
    "DYLD_LIBRARY_PATH",
    "CUDA_VISIBLE_DEVICES",
    "CUDA_HOME",
    "SYSTEMROOT",
    "TERM",
)


def kernel_env(home: str, threads: int, package_root: str | None = None) -> dict[str, str]:
    """The kernel's environment; ``package_root``: the folder whose ``helpers`` it imports
    (default: this grader's own)."""
    env = {k: v for k, v in os.environ.items() if k in KEEP_ENV or k.startswith("LC_")}
    tmp = os.path.join(home, "tmp")
    os.makedirs(tmp, exist_ok=True)
    mpl = os.path.join(home, ".matplotlib")
    os.makedirs(mpl, exist_ok=True)
    env.update(
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
