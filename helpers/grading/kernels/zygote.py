"""Preloaded kernels: a process that has imported torch, IPython, matplotlib... forks them.

One zygote per job slot (``--jobs N``: N zygotes), started once per batch as a new Python
process (not a fork of the grader: it holds none of the grader's memory, seed or files). With
the sandbox, the zygote runs in the slot's bubblewrap sandbox as its PID 1, and every kernel of
that slot is a fork of it, inside the same sandbox:

- between two submissions the grader asks it to ``reset``: PID 1 sends SIGKILL to every other
  process of its PID namespace (``kill(-1)``, which spares only the caller), waits until they
  are gone, empties the private ``/dev/shm`` and ``/dev/mqueue`` (POSIX message queues),
  removes System V IPC objects (the sandbox has its own IPC namespace) and empties the user's
  keyrings (``@u``, ``@us``: the sandbox's user namespace has its own); the grader then empties
  the slot's folder. Each kernel joins a new session keyring (``@s``) when it starts.
  So nothing a submission started outlives its grading, and the next submission in that slot
  starts from the same empty sandbox, exactly as with a new sandbox per submission, without
  paying for importing torch again;
- the zygote is not dumpable (``PR_SET_DUMPABLE`` 0): without capabilities a kernel cannot
  read its memory, its open pipes or its environment through ``/proc/1``, nor ptrace it; as
  PID 1 it gets no signal from the kernels that it does not handle (SIGKILL and SIGSTOP
  included);
- requests and replies are JSON (nothing unpickled), one at a time, by request id.

Kernels' process ids are those of the zygote's PID namespace: the grader signals and polls
them through the zygote, never with ``os.kill``. Linux only.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time

from ..limits import PRELOAD_SECONDS
from .pipe import recv_plain, send_plain

PRELOAD = (
    "torch",
    "numpy",
    "IPython",
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
    "matplotlib",
    "matplotlib.pyplot",
    "ipywidgets",
    "helpers",
    "helpers.plotting",
    "helpers.widgets",
    # what the first operation on a tensor subclass imports (0.5 s): the checks run the
    # learner's code on fakegpu (helpers/checks/run/fake_gpu.py) on a CPU-only machine
    "torch.distributed.tensor",
)

READY = "ready"  # the id of the message a zygote sends once it has imported PRELOAD


class Zygote:
    """The grader's handle on one zygote (see the module docstring)."""

    def __init__(
        self,
        env: dict[str, str],
        sandbox: list[str] | None = None,
        cwd: str | None = None,
        python: str = sys.executable,  # as the sandbox shows it: sandbox.executable()
    ):
        from multiprocessing.connection import Connection

        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        code = (
            "import sys; from multiprocessing.connection import Connection; "
            "from helpers.grading.kernels.zygote import zygote_main; "
            "zygote_main(Connection(int(sys.argv[1]), writable=False), "
            "Connection(int(sys.argv[2]), readable=False), sys.argv[3] == '1')"
        )
        cmd = [python, "-c", code, str(req_r), str(rep_w), "1" if sandbox else "0"]
        self.proc = subprocess.Popen(
            [*(sandbox or []), *cmd],
            pass_fds=(req_r, rep_w),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
        os.close(req_r)
        os.close(rep_w)
        self.pid = self.proc.pid  # the host's pid of bwrap (or of the zygote, unsandboxed)
        self.sandboxed = bool(sandbox)
        self.requests = Connection(req_w, readable=False)
        self.replies = Connection(rep_r, writable=False)
        self.started, self.is_ready = time.monotonic(), False

    def ready(self) -> bool:
        """Whether it has imported PRELOAD, without waiting (True too once it has ended, or
        after PRELOAD_SECONDS: then its first spawn fails and the kernel starts on its own).
        Until then the slot's view of the package must not change: the zygote is importing
        it, and an import that meets a file being rewritten fails or loads half a module."""
        while not self.is_ready:
            if time.monotonic() - self.started > PRELOAD_SECONDS:
                self.is_ready = True
            elif not self.replies.poll(0):
                return False
            else:
                try:
                    self.is_ready = recv_plain(self.replies).get("id") == READY
                except (EOFError, OSError, ValueError, AttributeError):
                    self.is_ready = True  # it has ended (or sent nonsense): not worth a wait
        return True

    def request(self, op: str, timeout: float = 60.0, **fields) -> dict:
        """Send one request and wait for its reply (replies to requests of a killed worker are
        skipped by id)."""
        try:  # (a worker is not the zygote's parent: Popen.poll() would not know)
            os.kill(self.pid, 0)
        except OSError:
            raise RuntimeError("the kernel zygote has exited") from None
        rid = os.urandom(8).hex()
        try:
            send_plain(self.requests, {"op": op, "id": rid, **fields})
        except OSError:  # it ended between the check and the write
            raise RuntimeError("the kernel zygote has exited") from None
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not self.replies.poll(left):
                raise RuntimeError(f"the kernel zygote did not answer ({op})")
            try:
                reply = recv_plain(self.replies)
            except (EOFError, OSError):
                raise RuntimeError("the kernel zygote has exited") from None
            if isinstance(reply, dict) and reply.get("id") == rid:
                if reply.get("error"):
                    raise RuntimeError(f"the kernel zygote failed: {reply['error']}")
                return reply

    def spawn(
        self, connection_file: str, workdir: str, env: dict, memory_bytes: int, file_bytes: int
    ) -> int:
        # the zygote answers once it has imported PRELOAD: minutes on a busy machine (a kernel
        # of its own would import the same, beside it, slower still)
        reply = self.request(
            "spawn",
            timeout=PRELOAD_SECONDS,
            connection_file=connection_file,
            workdir=workdir,
            env=env,
            memory_bytes=memory_bytes,
            file_bytes=file_bytes,
        )
        return int(reply["pid"])

    def alive(self, pid: int) -> bool:
        try:
            return bool(self.request("alive", timeout=10, pid=pid)["alive"])
        except RuntimeError:
            return False

    def signal(self, pid: int, sig: int) -> None:
        """``sig`` to the kernel's process group (it leads its own session)."""
        try:
            self.request("signal", timeout=10, pid=pid, sig=int(sig))
        except RuntimeError:
            pass

    def reset(self, timeout: float = 20.0) -> None:
        """End every process the last submission left (RuntimeError if the zygote cannot)."""
        self.request("reset", timeout=timeout)

    def close(self) -> None:
        for conn in (self.requests, self.replies):
            try:
                conn.close()
            except Exception:
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # bwrap and, through it, its sandbox
        except OSError:
            pass
        try:
            self.proc.wait(10)
        except Exception:
            pass


# --------------------------------------------------------------------------- in the zygote


def _not_dumpable() -> None:
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
    except Exception:
        pass


def zygote_main(requests, replies, sandboxed: bool) -> None:
    import importlib

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the grader's to handle
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # kernels (and orphans, as PID 1) are reaped
    _not_dumpable()
    from ..limits import fresh_keyring

    fresh_keyring()  # not the grader's session keyring
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:
            pass
    spawned: list[int] = []
    start = _own_state()
    send_plain(replies, {"id": READY})  # the grader may change the package's view from now on
    while True:
        try:
            req = recv_plain(requests)
        except (EOFError, OSError, ValueError):
            return
        try:
            reply = _serve(req, requests, replies, sandboxed, spawned)
            if req.get("op") == "reset":  # what a kernel changed in its zygote, kernels inherit
                changed = [k for k, v in _own_state().items() if start.get(k) != v]
                if changed:  # not undone here (a lowered hard limit cannot be raised again):
                    raise RuntimeError(f"a submission changed the zygote's {', '.join(changed)}")
        except Exception as exc:
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        send_plain(replies, {"id": req.get("id"), **reply})


def _own_state() -> dict:
    """What another process of this user can change in this one (prlimit, setpriority,
    sched_setaffinity, files in /proc/<pid>/): the forked kernels would inherit it, and a
    submission could pass data or a handicap to the next one through it."""
    import resource

    state: dict = {
        name: resource.getrlimit(getattr(resource, name))
        for name in dir(resource)
        if name.startswith("RLIMIT_")
    }
    state["nice"] = os.getpriority(os.PRIO_PROCESS, 0)
    state["affinity"] = sorted(os.sched_getaffinity(0))
    state["scheduler"] = os.sched_getscheduler(0)
    state["ioprio"] = _ioprio()
    # autogroup: the nice of the sandbox's session, which every kernel forked here shares
    for name in ("oom_score_adj", "coredump_filter", "comm", "timerslack_ns", "autogroup"):
        try:
            with open(f"/proc/self/{name}") as f:
                state[name] = f.read()
        except OSError:
            pass
    return state


IOPRIO_GET = {"x86_64": 252, "aarch64": 31}  # system call numbers; other machines: not compared


def _ioprio() -> int:
    """This process's I/O scheduling class and level (``ioprio_get``; -1 where unknown): a
    kernel may set its zygote's to "idle" (attack round 5), which the next kernels inherit."""
    import ctypes
    import platform

    number = IOPRIO_GET.get(platform.machine())
    if number is None:
        return -1
    try:
        return int(ctypes.CDLL(None, use_errno=True).syscall(number, 1, 0))  # PROCESS, self
    except (OSError, AttributeError):
        return -1


def _serve(req: dict, requests, replies, sandboxed: bool, spawned: list[int]) -> dict:
    op = req.get("op")
    if op == "spawn":
        pid = os.fork()
        if pid == 0:
            try:
                requests.close()
                replies.close()
                _become_kernel(
                    req["connection_file"],
                    req["workdir"],
                    req["env"],
                    int(req["memory_bytes"]),
                    int(req["file_bytes"]),
                )
            finally:
                os._exit(1)
        spawned.append(pid)
        return {"pid": pid}
    if op == "alive":
        try:
            os.kill(int(req["pid"]), 0)
            return {"alive": True}
        except OSError:
            return {"alive": False}
    if op == "signal":
        try:
            os.killpg(int(req["pid"]), int(req["sig"]))
        except OSError:
            pass
        return {}
    if op == "reset":
        return _reset(sandboxed, spawned)
    return {"error": f"unknown request {op!r}"}


def _reset(sandboxed: bool, spawned: list[int]) -> dict:
    """Kill every process but this one: in the sandbox all of the PID namespace, else the
    process groups of the kernels spawned (what left them is out of reach: unconfined)."""
    import shutil

    if sandboxed and os.getpid() == 1:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:  # nothing left to kill
            pass
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            others = [p for p in os.listdir("/proc") if p.isdigit() and p != "1"]
            if not others:
                break
            time.sleep(0.02)
        else:
            raise RuntimeError(f"{len(others)} processes did not end")
        for entry in os.listdir("/dev/shm"):
            path = os.path.join("/dev/shm", entry)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
        for entry in os.listdir("/dev/mqueue"):  # POSIX message queues (the sandbox mounts it)
            os.unlink(os.path.join("/dev/mqueue", entry))
        _remove_sysv_ipc()
        from ..limits import clear_user_keyrings

        clear_user_keyrings()
    else:
        for pid in spawned:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
    spawned.clear()
    return {}


def _remove_sysv_ipc() -> None:
    """Remove the System V shared memory, semaphores and message queues of this sandbox's IPC
    namespace: they outlive their makers, and the next submission in the slot would see them."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    ipc_rmid = 0
    removers = {
        "shm": lambda i: libc.shmctl(i, ipc_rmid, None),
        "sem": lambda i: libc.semctl(i, 0, ipc_rmid),
        "msg": lambda i: libc.msgctl(i, ipc_rmid, None),
    }
    for kind, remove in removers.items():
        try:
            with open(f"/proc/sysvipc/{kind}") as f:
                lines = f.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:  # columns: key, id, ...
            remove(int(line.split()[1]))


def _become_kernel(connection_file, workdir, env, memory_bytes, file_bytes) -> None:
    import ctypes
    import importlib

    from ..limits import forbid_shared_objects, fresh_keyring, set_limits

    os.setsid()  # its own session: interrupts and kills reach what it starts
    fresh_keyring()  # and its own keyring session: nothing of the last submission's
    try:
        ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)  # dumpable again: it is the learner's own process
    except Exception:
        pass
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    set_limits(memory_bytes, file_bytes)
    forbid_shared_objects()  # after its own keyring: no key, inotify instance... from here on
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    # the grader's sys.stdout may be anything (a StringIO under redirect_stdout, pytest's capture)
    sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__
    os.chdir(workdir)
    os.environ.clear()
    os.environ.update(env)
    os.environ["JPY_PARENT_PID"] = str(os.getppid())  # the kernel ends when the zygote does
    tempfile.tempdir = None
    if "torch" in sys.modules:  # imported before the environment said how many threads
        try:
            sys.modules["torch"].set_num_threads(max(1, int(env.get("OMP_NUM_THREADS", "1"))))
        except Exception:
            pass
    sys.path[:] = [p for p in sys.path if p]  # no grader's working directory on the path
    importlib.invalidate_caches()  # the package's view was filled again for this submission
    sys.path.insert(0, "")
    sys.argv = ["ipykernel_launcher", "-f", connection_file, "--HistoryManager.hist_file=:memory:"]
    from ipykernel.kernelapp import IPKernelApp

    IPKernelApp.launch_instance(argv=sys.argv[1:])
    os._exit(0)
