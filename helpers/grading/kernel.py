"""A learner's kernel under limits: memory, file size, time per cell, captured output.

The memory limit is ``RLIMIT_DATA``, not ``RLIMIT_AS``. Since Linux 4.7 ``RLIMIT_DATA`` counts
the private writable mappings of a process (heap, anonymous ``mmap``, thread stacks, the
writable data of libraries): the memory a cell can fill. ``RLIMIT_AS`` counts address space,
which includes the text of every shared library mapped: importing a CUDA build of torch maps
about 3.1 GB of it (0.6 GB for the CPU wheel) without using that memory, so an address-space
limit failed honest notebooks on CUDA builds. Read-only library text and ``PROT_NONE``
reservations (CUDA's unified address range) are not counted by ``RLIMIT_DATA``; an allocation
beyond the limit fails in the cell that makes it (``MemoryError``, or torch's "can't allocate
memory"). On older kernels ``RLIMIT_DATA`` counts only the heap (``brk``): large allocations,
which glibc makes with ``mmap``, would not be stopped there.

The kernel is an ipykernel started through a tiny launcher (``python -c LAUNCHER``) that sets
resource limits on itself and then ``exec``s the kernel, so the limits hold for the kernel
and everything it starts. It runs with its working directory, HOME and TMPDIR in the
submission's temporary folder and with a small environment (no secrets inherited).
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

# Sets the limits, then becomes the kernel. argv: memory_bytes file_bytes -- cmd...
LAUNCHER = r"""
import os, sys
try:
    import resource
    mem, fsize = int(sys.argv[1]), int(sys.argv[2])
    if mem > 0:
        resource.setrlimit(resource.RLIMIT_DATA, (mem, mem))
    if fsize > 0:
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
except ImportError:  # Windows: no resource limits
    pass
cmd = sys.argv[4:]
os.execv(cmd[0], cmd)
"""

# variables passed on to the kernel; everything else in the grader's environment is dropped
KEEP_ENV = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONPATH", "VIRTUAL_ENV",
            "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH",
            "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "SYSTEMROOT", "TERM")


@dataclass
class CellRun:
    status: str  # ok, error, timeout, died
    ename: str = ""
    evalue: str = ""
    seconds: float = 0.0
    alive: bool = True  # the kernel is still usable afterwards

    def describe(self) -> str:
        text = f"{self.ename}: {self.evalue}" if self.evalue else self.ename
        return text.strip().splitlines()[0][:300] if text.strip() else self.status


def kernel_env(home: str, threads: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in KEEP_ENV or k.startswith("LC_")}
    tmp = os.path.join(home, "tmp")
    os.makedirs(tmp, exist_ok=True)
    mpl = os.path.join(home, ".matplotlib")
    os.makedirs(mpl, exist_ok=True)
    env.update(HOME=home, USERPROFILE=home, TMPDIR=tmp, TEMP=tmp, TMP=tmp, MPLCONFIGDIR=mpl,
               IPYTHONDIR=os.path.join(home, ".ipython"), JUPYTER_CONFIG_DIR=os.path.join(home, ".jupyter"),
               JUPYTER_DATA_DIR=os.path.join(home, ".jupyter-data"),
               MPLBACKEND="agg",  # no PNG rendering: figures are not graded
               PYTHONDONTWRITEBYTECODE="1", PYTHONUNBUFFERED="1", PYDEVD_DISABLE_FILE_VALIDATION="1",
               OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    return env


class Kernel:
    """One ipykernel in ``workdir`` under ``memory_bytes`` of memory (``RLIMIT_DATA``).

    Started as a new process (``python -c LAUNCHER ... ipykernel_launcher``), or, when a
    :class:`Zygote` is given, forked from it: the same kernel without paying for importing
    torch, IPython and matplotlib again.
    """

    def __init__(self, workdir: str, *, memory_bytes: int, file_bytes: int, threads: int,
                 output_cap: int, startup_timeout: float = 60.0, zygote: "Zygote | None" = None,
                 private: str | None = None):
        self.output_cap = output_cap
        self.output_bytes = 0
        self.bad_messages = 0
        self.km = None
        self.pid = None
        env = kernel_env(workdir, threads)
        if zygote is not None:
            from jupyter_client import BlockingKernelClient
            from jupyter_client.connect import write_connection_file

            folder = private or tempfile.mkdtemp(prefix="kernel-")
            cf, _ = write_connection_file(os.path.join(folder, f"kernel-{os.urandom(4).hex()}.json"),
                                          ip="127.0.0.1", key=os.urandom(16).hex().encode())
            self.pid = zygote.spawn(cf, workdir, env, memory_bytes, file_bytes)
            self.kc = BlockingKernelClient(connection_file=cf)
            self.kc.load_connection_file()
        else:
            from jupyter_client import KernelManager

            class LimitedKernelManager(KernelManager):
                def format_kernel_cmd(self, extra_arguments=None):
                    cmd = [sys.executable, "-m", "ipykernel_launcher", "-f",
                           os.path.realpath(self.connection_file),
                           "--HistoryManager.hist_file=:memory:"]
                    return [sys.executable, "-c", LAUNCHER, str(memory_bytes), str(file_bytes), "--", *cmd]

            self.km = LimitedKernelManager(kernel_name="python3")
            self.km.start_kernel(cwd=workdir, env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            self.pid = self.km.provisioner.process.pid if self.km.provisioner else None
            self.kc = self.km.client()
        self.kc.start_channels()
        try:
            self._wait_for_ready(startup_timeout)
        except Exception:
            self.close()
            raise
        import zmq

        self.poller = zmq.Poller()
        self.poller.register(self.kc.shell_channel.socket, zmq.POLLIN)
        self.poller.register(self.kc.iopub_channel.socket, zmq.POLLIN)

    def _wait_for_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if not self.alive():
                raise RuntimeError("the kernel died while starting")
            try:
                self.kc.wait_for_ready(timeout=1)
                return
            except RuntimeError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the kernel did not start within {timeout:g} s") from None

    # ------------------------------------------------------------------ running code

    def _drain_iopub(self) -> None:
        while self.kc.iopub_channel.msg_ready():
            try:
                msg = self.kc.iopub_channel.get_msg(timeout=0)
            except Exception:  # a garbled message (a kernel out of memory): skip it
                self.bad_messages += 1
                continue
            content = msg.get("content", {})
            if msg["msg_type"] == "stream":
                self.output_bytes += len(content.get("text", ""))
            elif msg["msg_type"] in ("display_data", "execute_result", "error"):
                self.output_bytes += sum(len(str(v)) for v in content.get("data", {}).values())

    @property
    def output_capped(self) -> bool:
        return self.output_bytes > self.output_cap

    def alive(self) -> bool:
        if self.km is not None:
            try:
                return bool(self.km.is_alive())
            except Exception:
                return False
        try:  # a forked kernel: the zygote reaps it as soon as it ends
            os.kill(self.pid, 0)
            return True
        except OSError:
            return False

    def interrupt(self) -> None:
        try:
            if self.km is not None:
                self.km.interrupt_kernel()
            else:
                os.killpg(self.pid, signal.SIGINT)
        except Exception:
            pass

    def run(self, code: str, timeout: float, grace: float = 5.0) -> CellRun:
        """Execute ``code``; on timeout interrupt, and kill when the interrupt does not work."""
        start = time.monotonic()
        msg_id = self.kc.execute(code, store_history=False, allow_stdin=False, stop_on_error=False)
        deadline = start + max(timeout, 0.1)
        interrupted = False
        while True:
            now = time.monotonic()
            if now >= deadline:
                if interrupted:  # the interrupt did not stop it: kill
                    self.kill()
                    return CellRun("timeout", seconds=now - start, alive=False)
                self.interrupt()
                interrupted = True
                deadline = now + grace
            events = dict(self.poller.poll(int(min(deadline - now, 1.0) * 1000) + 1))
            self._drain_iopub()
            while self.kc.shell_channel.msg_ready():
                try:
                    msg = self.kc.shell_channel.get_msg(timeout=0)
                except Exception:
                    self.bad_messages += 1
                    continue
                if msg["parent_header"].get("msg_id") != msg_id:
                    continue
                content = msg["content"]
                seconds = time.monotonic() - start
                if interrupted:
                    return CellRun("timeout", seconds=seconds)
                if content.get("status") == "ok":
                    return CellRun("ok", seconds=seconds)
                return CellRun("error", str(content.get("ename", "")), str(content.get("evalue", "")),
                               seconds=seconds)
            if not events and not self.alive():
                return CellRun("died", seconds=time.monotonic() - start, alive=False)

    # ------------------------------------------------------------------ cleanup

    def kill(self) -> None:
        pid = self.pid
        # the kernel leads its own session (and is our child, not yet reaped, so its pid is
        # not reused): killing the group also ends what it started
        if pid and hasattr(os, "killpg"):
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError, OSError):
                pass
        if self.km is not None:
            try:
                self.km.shutdown_kernel(now=True)
            except Exception:
                pass

    def close(self) -> None:
        try:
            self.kc.stop_channels()
        except Exception:
            pass
        self.kill()
        if self.km is not None:
            try:
                self.km.cleanup_resources()
            except Exception:
                pass


# --------------------------------------------------------------------------- zygote

PRELOAD = ("torch", "numpy", "IPython", "ipykernel.kernelapp", "ipykernel.ipkernel", "matplotlib",
           "matplotlib.pyplot", "ipywidgets", "helpers", "helpers.plotting", "helpers.widgets")


class Zygote:
    """A process that has imported ipykernel, torch, matplotlib... and forks fresh kernels.

    It is a new Python process (not a fork of the grader: it holds none of the grader's memory
    and no thread pools that a fork could break), started once per batch; every worker asks
    it for kernels through a pipe, one request at a time (a lock). Each kernel is a new fork
    of it: nothing a kernel does reaches the next one. Linux only.
    """

    def __init__(self, ctx):
        from multiprocessing.connection import Connection

        self.lock = ctx.Lock()
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        code = ("import sys; from multiprocessing.connection import Connection; "
                "from helpers.grading.kernel import _zygote_main; "
                "_zygote_main(Connection(int(sys.argv[1]), writable=False), "
                "Connection(int(sys.argv[2]), readable=False))")
        env = dict(os.environ, MPLBACKEND="agg")
        self.proc = subprocess.Popen([sys.executable, "-c", code, str(req_r), str(rep_w)],
                                     pass_fds=(req_r, rep_w), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     env=env, start_new_session=True)
        os.close(req_r)
        os.close(rep_w)
        self.pid = self.proc.pid
        self.requests = Connection(req_w, readable=False)
        self.replies = Connection(rep_r, writable=False)

    def spawn(self, connection_file: str, workdir: str, env: dict, memory_bytes: int,
              file_bytes: int, timeout: float = 60.0) -> int:
        try:  # (a worker is not the zygote's parent: Popen.poll() would not know)
            os.kill(self.pid, 0)
        except OSError:
            raise RuntimeError("the kernel zygote has exited") from None
        if not self.lock.acquire(timeout=timeout):
            raise RuntimeError("the kernel zygote is busy")
        try:
            self.requests.send((connection_file, workdir, env, memory_bytes, file_bytes))
            if not self.replies.poll(timeout):
                raise RuntimeError("the kernel zygote did not answer")
            pid = self.replies.recv()
        finally:
            self.lock.release()
        if not isinstance(pid, int):
            raise RuntimeError(f"the kernel zygote failed: {pid}")
        return pid

    def close(self) -> None:
        for conn in (self.requests, self.replies):
            try:
                conn.close()
            except Exception:
                pass
        try:
            self.proc.kill()
            self.proc.wait(10)
        except Exception:
            pass


def _zygote_main(requests, replies) -> None:
    import importlib

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the grader's to handle
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # kernels are reaped as soon as they end
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:
            pass
    while True:
        try:
            request = requests.recv()
        except (EOFError, OSError):
            return
        try:
            pid = os.fork()
        except OSError as exc:
            replies.send(f"fork failed: {exc}")
            continue
        if pid == 0:
            try:
                requests.close()
                replies.close()
                _become_kernel(*request)
            finally:
                os._exit(1)
        replies.send(pid)


def _become_kernel(connection_file, workdir, env, memory_bytes, file_bytes) -> None:
    os.setsid()  # its own session: interrupts and kills reach what it starts
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        import resource

        if memory_bytes > 0:
            resource.setrlimit(resource.RLIMIT_DATA, (memory_bytes, memory_bytes))  # see the docstring
        if file_bytes > 0:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except ImportError:
        pass
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
    sys.path.insert(0, "")
    sys.argv = ["ipykernel_launcher", "-f", connection_file, "--HistoryManager.hist_file=:memory:"]
    from ipykernel.kernelapp import IPKernelApp

    IPKernelApp.launch_instance(argv=sys.argv[1:])
    os._exit(0)
