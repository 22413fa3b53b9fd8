"""The sandbox every kernel runs in: bubblewrap (``bwrap``), the tool Flatpak uses.

What a sandbox made by :func:`bwrap_command` gives the processes in it:

- a file system of its own: the system (``/usr``, the libraries, a few files of ``/etc``), the
  Python environment and the ``helpers`` package, all read-only; one writable folder, the
  submission's own (``folder``); an empty read-only ``/tmp`` and ``/``, a private
  ``/dev/shm`` of 256 MiB. Nothing else exists in it: not the other submissions, not the
  gradebook, the feedback folder, the grader's inputs or the user's home;
- a user namespace with every capability dropped (``--cap-drop ALL``): the uid inside is the
  grader's own (0 when the grader runs as root: root without capabilities, which cannot
  remount, write a read-only path or act on anything outside), in which no further user
  namespace can be made (``--disable-userns``): without capabilities, that was the only way
  to a namespace of any kind, and each counts against the grader's user in every ancestor;
- its own network namespace (no network at all, not even 127.0.0.1 of the host), PID, IPC
  and UTS namespaces: the grader's and the other kernels' processes do not exist in it,
  and when the sandbox's first process ends, every process in it ends (``--die-with-parent``
  makes that happen when the grader dies, too).

The kernel's channel to the grader crosses the network namespace through unix sockets in
the submission's folder (ZeroMQ ``ipc`` transport). ``--device cuda`` adds the NVIDIA
device nodes (``/dev/nvidia*``) and ``/sys`` (read-only, for the driver's queries).
"""

from __future__ import annotations

import functools
import glob
import os
import shutil
import site
import subprocess
import sys

from ..limits import SHM_BYTES
from ..records import UsageError

INSTALL = (
    "install bubblewrap: `sudo apt-get install bubblewrap` (Debian/Ubuntu), "
    "`sudo dnf install bubblewrap` (Fedora); on macOS or Windows, grade inside a Linux "
    "container or VM"
)
UNCONFINED = (
    "WARNING: submissions run UNCONFINED: {why}. Code in a submission can read and "
    "write your files, use the network and outlive the grading. To sandbox every "
    "kernel, " + INSTALL + "."
)
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "fonts",
    "localtime",
    "timezone",
    "passwd",
    "group",
    "nsswitch.conf",
    "hosts",
    "mime.types",
    "alternatives",
    "ssl",
    "ca-certificates",
    "matplotlibrc",
    "os-release",
)


@functools.cache
def bwrap_problem(bwrap: str) -> str:
    """Why ``bwrap`` cannot make our sandbox here ("" when it can): user namespaces disabled..."""
    cmd = [
        bwrap,
        "--unshare-user",
        "--cap-drop",
        "ALL",
        "--unshare-pid",
        "--unshare-net",
        "--die-with-parent",
        *_read_only(python_roots()),
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        sys.executable,
        "-c",
        "pass",
    ]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{bwrap} does not run ({type(exc).__name__}: {exc})"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return f"{bwrap} is installed but cannot make a sandbox here ({last})"
    return ""


@functools.cache
def disables_userns(bwrap: str = "bwrap") -> bool:
    """Whether this bubblewrap can forbid new user namespaces inside (``--disable-userns``,
    bubblewrap 0.8): without it a submission can make namespaces that count against the
    grader's user in every ancestor (``max_user_namespaces``, ``max_uts_namespaces``...),
    until no sandbox of this user, in this batch or another, can start."""
    try:
        done = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--disable-userns" in done.stdout + done.stderr


USERNS_NOTE = (
    "note: this bubblewrap is older than 0.8 (no --disable-userns): a submission can create "
    "namespaces that count against your user's limits; install bubblewrap 0.8 or later"
)


def start_problem(prefix: list[str]) -> str:
    """Why a sandbox made by ``prefix`` (``bwrap ... --``, maybe in a cgroup) cannot start
    now ("" if it can): the per-user limit on namespaces reached, a cgroup gone..."""
    try:
        done = subprocess.run(
            [*prefix, sys.executable, "-c", "pass"], capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{type(exc).__name__}: {exc}"
    if done.returncode == 0:
        return ""
    return (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1][:300]


def resolve(mode: str) -> tuple[str, str]:
    """``--sandbox`` to what is used: ("bwrap", "") or ("none", the warning to show)."""
    if mode not in ("auto", "bwrap", "none"):
        raise UsageError(f"--sandbox must be auto, bwrap or none, not {mode!r}")
    if mode == "none":
        return "none", UNCONFINED.format(why="--sandbox none")
    bwrap = shutil.which("bwrap") if sys.platform.startswith("linux") else None
    why = (
        ""
        if bwrap
        else (
            "bubblewrap (bwrap) is not installed"
            if sys.platform.startswith("linux")
            else f"there is no bubblewrap on {sys.platform}"
        )
    )
    why = why or bwrap_problem(bwrap)
    if not why:
        return "bwrap", "" if disables_userns(bwrap) else USERNS_NOTE
    if mode == "bwrap":
        raise UsageError(f"--sandbox bwrap: {why}; {INSTALL}.")
    return "none", UNCONFINED.format(why=why)


def helpers_path() -> str:
    import helpers

    return os.path.dirname(os.path.realpath(helpers.__file__))


def python_roots() -> list[str]:
    """Folders the kernel's Python needs: its prefixes, its import path, the helpers package.

    Import paths inside the environment's prefixes, in ``PYTHONPATH`` and the user's site
    folder are bound; the folder a script or ``python -m`` runs in is not, nor a folder that
    holds ``helpers`` outside the environment (the course repository of an editable install,
    beside the submissions and the gradebook): ``helpers`` is bound by itself.
    """
    package = helpers_path()
    prefixes = [os.path.realpath(p) for p in (sys.prefix, sys.base_prefix)]

    def wanted(entry: str) -> bool:  # installed packages, not the folders a script runs in
        entry = os.path.realpath(entry)
        if any(entry == p or entry.startswith(p + "/") for p in prefixes):
            return True
        return entry in extra and not package.startswith(entry.rstrip("/") + "/")

    extra = {os.path.realpath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
    if site.ENABLE_USER_SITE:
        extra.add(os.path.realpath(site.getusersitepackages()))
    found = [
        sys.base_prefix,
        sys.prefix,
        sys.exec_prefix,
        sys.base_exec_prefix,
        os.path.dirname(os.path.realpath(sys.executable)),
        package,
    ]
    found += [p for p in sys.path if p and wanted(p)]
    found += [p for p in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if p]
    found += [os.environ[v] for v in ("CUDA_HOME", "CUDA_PATH") if v in os.environ]
    return _outermost(os.path.realpath(p) for p in found if os.path.exists(p))


def _outermost(paths) -> list[str]:
    """The paths without those inside another one (a bind of the outer one shows them)."""
    kept: list[str] = []
    for p in sorted(set(paths), key=len):
        if p != "/" and not any(p == k or p.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(p)
    return sorted(kept)


def _read_only(roots: list[str]) -> list[str]:
    args: list[str] = []
    for path in SYSTEM:
        if os.path.islink(path):  # merged /usr: /bin -> usr/bin
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for name in ETC:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    for root in roots:
        if not any(root == s or root.startswith(s + "/") for s in SYSTEM):
            args += ["--ro-bind", root, root]
    return args


def _hide(hidden: list[str], roots: list[str], folder: str) -> list[str]:
    """Cover what must not be seen where it lies inside a bound folder (the others do not exist)."""
    args: list[str] = []
    for path in sorted({os.path.realpath(h) for h in hidden}):
        inside = any(path.startswith(r.rstrip("/") + "/") for r in [*roots, *SYSTEM])
        if (
            not inside
            or folder == path
            or folder.startswith(path + "/")
            or not os.path.exists(path)
        ):
            continue
        args += ["--tmpfs", path] if os.path.isdir(path) else ["--ro-bind", "/dev/null", path]
    return args


def _devices(device: str, dev: str = "/dev") -> list[str]:
    """NVIDIA device nodes and /sys for ``--device cuda`` (CUDA opens them; nothing else).

    Each node is bound by itself, also those in a folder (``/dev/nvidia-caps``, ``/dev/dri``):
    a bound folder would be a writable piece of the host's ``/dev`` (``--remount-ro /dev``
    leaves it as it is), where a node's own folder is made in the sandbox's read-only ``/dev``.
    ``dev``: where to look (a test's stand-in); the nodes appear under ``/dev`` all the same.
    """
    if not device.startswith("cuda"):
        return []
    found = sorted(glob.glob(os.path.join(dev, "nvidia*")) + [os.path.join(dev, "dri")])
    nodes = []
    for path in found:
        if os.path.isdir(path) and not os.path.islink(path):
            for top, _, files in os.walk(path):
                nodes += [os.path.join(top, f) for f in sorted(files)]
        elif os.path.exists(path):
            nodes.append(path)
    args = []
    for node in nodes:
        if not os.path.islink(node):  # a link (/dev/dri/by-path) would bind what it names
            args += ["--dev-bind-try", node, "/dev" + node[len(dev) :]]
    return args + ["--ro-bind-try", "/sys", "/sys"]


def bwrap_command(
    folder: str,
    *,
    hidden: list[str] = (),
    device: str = "cpu",
    as_pid_1: bool = False,
    package: str | None = None,
) -> list[str]:
    """The ``bwrap ...`` prefix that runs a command sandboxed with ``folder`` as its only
    writable (and only visible) work area; ``hidden``: inputs to cover if a bound folder holds
    them; ``package``: a folder shown in place of the ``helpers`` package (kernel_view.py)."""
    bwrap = shutil.which("bwrap") or "bwrap"
    folder = os.path.realpath(folder)
    roots = python_roots()
    args = [
        bwrap,
        "--unshare-user",
        *(["--disable-userns"] if disables_userns(bwrap) else []),
        "--uid",
        str(os.getuid()),
        "--gid",
        str(os.getgid()),
        "--cap-drop",
        "ALL",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--hostname",
        "grading",
        "--die-with-parent",
        "--new-session",
    ]
    args += ["--as-pid-1"] if as_pid_1 else []
    # /tmp first: a Python environment or helpers under /tmp (a Gradescope bundle) is bound on it
    args += ["--tmpfs", "/tmp", *_read_only(roots)]
    if package:  # over the real package: its files are not in the sandbox at all
        args += ["--ro-bind", os.path.realpath(package), helpers_path()]
    args += ["--proc", "/proc", "--dev", "/dev", *_devices(device)]
    args += _hide(list(hidden), roots, folder)
    args += ["--bind", folder, folder, "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm"]
    args += ["--mqueue", "/dev/mqueue"]  # the sandbox's own POSIX message queues, listed here
    args += ["--remount-ro", "/tmp", "--remount-ro", "/dev", "--remount-ro", "/", "--chdir", folder]
    return args + ["--"]
