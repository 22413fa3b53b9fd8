"""Reading what a submission hands the grader in a process of its own, under limits.

:func:`call_limited` forks, runs a function in the child under a memory limit (``RLIMIT_DATA``
above what the child already holds, limits.py), a CPU-time limit and a wall-clock limit, and
returns its JSON-able answer. Whatever the input does there (inflate to GiBs in
``torch.load``, expand a list shared 100 times at every level, recurse too deep, loop, crash
the interpreter), the caller gets ``IsolatedError`` with a reason, never an exception of the
input's choosing, a grown memory or a stall. Linux and macOS (``os.fork``); elsewhere the
function runs in the caller's process.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import time
from collections.abc import Callable

from ..limits import MAX_REPLY_BYTES


class IsolatedError(Exception):
    """The limited call failed: ``str()`` says why, in words for a gradebook row."""


def _data_bytes() -> int:
    """RLIMIT_DATA's measure of this process now (VmData), 0 if unknown."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmData:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _child(fn: Callable[[], object], w: int, memory_bytes: int, seconds: float) -> None:
    import resource

    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        extra = _data_bytes() + memory_bytes
        resource.setrlimit(resource.RLIMIT_DATA, (extra, extra))
        cpu = int(seconds) + 1
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if "torch" in sys.modules:  # a forked child must not enter the parent's OpenMP pool:
            sys.modules["torch"].set_num_threads(1)  # it hangs there (as DataLoader workers do)
        try:
            reply = {"ok": fn()}
        except MemoryError:
            reply = {"error": "it needs more memory than the grader allows"}
        except RecursionError:
            reply = {"error": "it is nested too deeply"}
        except IsolatedError as exc:
            reply = {"error": str(exc)}
        except Exception as exc:  # the input's choice of exception: only its type is told
            reply = {"error": f"reading it raised {type(exc).__name__}"}
        data = json.dumps(reply).encode()[:MAX_REPLY_BYTES]
        with os.fdopen(w, "wb") as f:
            f.write(data)
    finally:
        os._exit(0)


def call_limited(fn: Callable[[], object], *, memory_bytes: int, seconds: float) -> object:
    """``fn()`` in a forked child under limits; its JSON-able value, or IsolatedError."""
    if not hasattr(os, "fork"):
        return fn()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        _child(fn, w, memory_bytes, seconds)
    os.close(w)
    chunks, size, deadline = [], 0, time.monotonic() + seconds
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([r], [], [], left)[0]:
                raise IsolatedError(f"reading it took over {seconds:g} s")
            chunk = os.read(r, 2**16)
            if not chunk:
                break
            size += len(chunk)
            if size > MAX_REPLY_BYTES:
                raise IsolatedError("the answer is too large")
            chunks.append(chunk)
    finally:
        os.close(r)
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        os.waitpid(pid, 0)
    try:
        reply = json.loads(b"".join(chunks))
    except ValueError:
        raise IsolatedError("reading it ended the process (out of memory or a crash)") from None
    if "error" in reply:
        raise IsolatedError(reply["error"])
    return reply["ok"]
