"""A learner's kernel under limits: memory, file size, time per cell, captured output.

A kernel is forked from the slot's zygote (zygote.py), or started as a new process through a
tiny launcher (``python -c LAUNCHER``) that sets the limits (limits.py) on itself and then
``exec``s ipykernel; with the sandbox, that launcher runs in a bubblewrap sandbox of its own
(sandbox.py). Either way the kernel runs with its working directory, HOME and TMPDIR in the
submission's folder and a small environment (no secrets inherited). Sandboxed kernels talk to
the grader over unix sockets in that folder (ZeroMQ ``ipc``): they have no network.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

from .. import limits
from ..limits import IOPUB_QUEUE, MAX_MESSAGE_BYTES
from .environment import kernel_env

# Sets the limits, then becomes the kernel. argv: limits.py memory_bytes file_bytes sandboxed -- cmd
# In a sandbox the grader is outside the PID namespace (the parent pid reads 0 or 1), so
# ipykernel's watch on its parent (JPY_PARENT_PID) would end the kernel at once: the sandbox's
# --die-with-parent does that job there.
LAUNCHER = r"""
import os, runpy, sys
limits = runpy.run_path(sys.argv[1])
limits["set_limits"](int(sys.argv[2]), int(sys.argv[3]))
limits["fresh_keyring"]()
limits["forbid_shared_objects"]()
if sys.argv[4] == "1":
    os.environ.pop("JPY_PARENT_PID", None)
cmd = sys.argv[6:]
os.execv(cmd[0], cmd)
"""


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


def output_size(msg: dict) -> int:
    """Characters of output an iopub message carries (its fields are the kernel's to forge)."""
    content = msg.get("content")
    if not isinstance(content, dict):
        return 0
    if msg.get("msg_type") == "stream":
        return len(str(content.get("text", "")))
    if msg.get("msg_type") in ("display_data", "execute_result", "error"):
        data = content.get("data", {})
        return sum(len(str(v)) for v in data.values()) if isinstance(data, dict) else len(str(data))
    return 0


class Kernel:
    """One ipykernel in ``workdir`` under ``memory_bytes`` of memory (limits.py).

    Forked from ``zygote`` when one is given (the same kernel without importing torch, IPython
    and matplotlib again), else started as a new process, in a sandbox of its own when
    ``sandbox`` (the ``bwrap ... --`` prefix) is given. ``private``: the folder for the
    connection file and the sockets (in the submission's folder, so visible in the sandbox).
    """

    def __init__(
        self,
        workdir: str,
        *,
        memory_bytes: int,
        file_bytes: int,
        threads: int,
        output_cap: int,
        private: str,
        startup_timeout: float = 60.0,
        zygote=None,
        sandbox: list[str] | None = None,
        ipc: bool = False,
        package_root: str | None = None,
        private_fd: int | None = None,
        on_start=lambda pid: None,
    ):
        self.output_cap = output_cap
        self.output_bytes = 0
        self.bad_messages = 0
        self.km = None
        self.pid = None
        self.zygote = zygote
        self.sandboxed = bool(sandbox) or ipc
        env = kernel_env(workdir, threads, package_root)
        ipc = ipc or bool(sandbox)
        cf, theirs, sockets = self._write_connection(private, private_fd, ipc)
        if zygote is not None:
            from jupyter_client import BlockingKernelClient

            self.pid = zygote.spawn(theirs, workdir, env, memory_bytes, file_bytes)
            self.kc = BlockingKernelClient(connection_file=cf)
            self.kc.load_connection_file()
        else:
            # the launcher reads limits.py from the package the kernel imports: the view's
            # copy where the real package is out of its reach (gradescope.py, another user)
            where = os.path.join(package_root, "helpers", "grading") if package_root else ""
            self.limits_file = os.path.join(where, "limits.py") if where else limits.__file__
            self._start_process(cf, theirs, workdir, env, memory_bytes, file_bytes, sandbox or [])
            if self.pid:  # a process of its own: the grader ends its group, watches its memory
                on_start(self.pid)
        if ipc:
            self.kc.ip = sockets
        self._open_channels(startup_timeout)

    @staticmethod
    def _write_connection(private: str, private_fd: int | None, ipc: bool) -> tuple[str, str, str]:
        """The kernel's connection file, in ``private``: the grader's path to it, the kernel's,
        and (``ipc``) the grader's path to the sockets, which are files there too."""
        from jupyter_client.connect import write_connection_file

        tag = os.urandom(4).hex()
        # the grader reaches ``private`` through its descriptor when it holds one: a rename of
        # the folder, or a link in its place, is not followed (the kernel gets the real path)
        mine = f"/proc/self/fd/{private_fd}" if private_fd is not None else private
        where = (
            {"transport": "ipc", "ip": os.path.join(private, f"k{tag}")}
            if ipc
            else {"transport": "tcp", "ip": "127.0.0.1"}
        )
        cf, _ = write_connection_file(
            os.path.join(mine, f"kernel-{tag}.json"), key=os.urandom(16).hex().encode(), **where
        )
        return cf, os.path.join(private, f"kernel-{tag}.json"), os.path.join(mine, f"k{tag}")

    def _open_channels(self, startup_timeout: float) -> None:
        """The channels, under the output cap, once the kernel answers; the poller over them."""
        import zmq

        # one message larger than this (a single print of a huge string) is dropped by ZeroMQ
        # on arrival: it never fills the grader's memory (the kernel's own limit allows GBs)
        self.kc.context.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
        # and at most IOPUB_QUEUE messages wait to be read: more are dropped by ZeroMQ (its
        # PUB/SUB rule), so that a flood of messages under that size cannot fill the grader
        # (600 of 4 MiB took a worker to 2.7 GB before); the cell's reply comes on another
        # channel, and what is dropped is output, over the cap anyway
        self.kc.context.setsockopt(zmq.RCVHWM, IOPUB_QUEUE)
        self.kc.start_channels()
        # ZeroMQ drops an oversized message by dropping the connection (output after it is lost
        # too): a disconnect while the kernel lives counts as output over the cap
        self.iopub_monitor = self.kc.iopub_channel.socket.get_monitor_socket(zmq.EVENT_DISCONNECTED)
        self.dropped = False
        try:
            self._wait_for_ready(startup_timeout)
        except Exception:
            self.close()
            raise
        self.poller = zmq.Poller()
        self.poller.register(self.kc.shell_channel.socket, zmq.POLLIN)
        self.poller.register(self.kc.iopub_channel.socket, zmq.POLLIN)

    def _start_process(
        self,
        cf: str,
        theirs: str,
        workdir: str,
        env: dict,
        memory_bytes: int,
        file_bytes: int,
        sandbox: list[str],
    ) -> None:
        from jupyter_client import KernelManager

        launcher = [
            sys.executable,
            "-c",
            LAUNCHER,
            self.limits_file,
            str(memory_bytes),
            str(file_bytes),
            "1" if sandbox else "0",
            "--",
        ]

        class LimitedKernelManager(KernelManager):
            def format_kernel_cmd(self, extra_arguments=None):
                cmd = [
                    sys.executable,
                    "-m",
                    "ipykernel_launcher",
                    "-f",
                    theirs,
                    "--HistoryManager.hist_file=:memory:",
                ]
                return [*sandbox, *launcher, *cmd]

        self.km = LimitedKernelManager(kernel_name="python3", connection_file=cf)
        self.km.load_connection_file()
        self.km.start_kernel(
            cwd=workdir, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        self.pid = self.km.provisioner.process.pid if self.km.provisioner else None
        self.kc = self.km.client()

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
        import zmq

        while self.iopub_monitor.poll(0):
            self.iopub_monitor.recv_multipart()
            self.dropped = True
        while self.output_bytes > self.output_cap:  # over the cap: dropped unread
            try:
                frames = self.kc.iopub_channel.socket.recv_multipart(zmq.NOBLOCK, copy=False)
            except zmq.Again:
                return
            except Exception:
                self.bad_messages += 1
                return
            self.output_bytes += sum(len(f.buffer) for f in frames)
        while self.kc.iopub_channel.msg_ready():
            try:
                msg = self.kc.iopub_channel.get_msg(timeout=0)
            except Exception:  # a garbled message (a kernel out of memory): skip it
                self.bad_messages += 1
                continue
            try:
                self.output_bytes += output_size(msg)
            except Exception:  # a message of a shape no kernel of ours sends: skip it
                self.bad_messages += 1
            if self.output_bytes > self.output_cap:
                return self._drain_iopub()  # the rest unread

    @property
    def output_capped(self) -> bool:
        return self.output_bytes > self.output_cap or (self.dropped and self.alive())

    def alive(self) -> bool:
        if self.km is not None:
            try:
                return bool(self.km.is_alive())
            except Exception:
                return False
        return self.zygote.alive(self.pid)  # a forked kernel: the zygote reaps it when it ends

    def interrupt(self) -> None:
        """SIGINT to the kernel's process group: through its zygote, or, for a sandboxed kernel
        of its own, by an ``interrupt_request`` on the control channel (bwrap does not forward
        signals; ipykernel then signals its own group)."""
        try:
            if self.zygote is not None:
                self.zygote.signal(self.pid, signal.SIGINT)
            elif self.sandboxed:
                self.kc.control_channel.send(self.kc.session.msg("interrupt_request", content={}))
            else:
                self.km.interrupt_kernel()
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
                return CellRun(
                    "error",
                    str(content.get("ename", "")),
                    str(content.get("evalue", "")),
                    seconds=seconds,
                )
            if not events and not self.alive():  # after the limit's interrupt: that limit
                status = "timeout" if interrupted else "died"
                return CellRun(status, seconds=time.monotonic() - start, alive=False)

    # ------------------------------------------------------------------ cleanup

    def kill(self) -> None:
        """End the kernel and what it started: its process group (it leads its own session),
        or, for a sandboxed kernel of its own, the whole sandbox (bwrap ends its PID namespace)."""
        if self.zygote is not None:
            self.zygote.signal(self.pid, signal.SIGKILL)
            return
        if self.pid and hasattr(os, "killpg"):  # our child, not yet reaped: the pid is not reused
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except OSError:
                pass
        if self.km is not None:
            try:
                self.km.shutdown_kernel(now=True)
            except Exception:
                pass

    def close(self) -> None:
        try:
            self.kc.iopub_channel.socket.disable_monitor()
            self.iopub_monitor.close(linger=0)
        except Exception:
            pass
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
