"""How much slower than an idle machine this one runs now: the tests' time limits scale by it.

A test that needs a wall-clock limit (the grader's time per cell, how long to wait for a
kernel's output, the notebooks' runtime budget) multiplies it by ``SLOWDOWN``: the wall time
a process needs for a fixed amount of CPU work, divided by that CPU time, measured once per
process when this module is first imported. On an idle machine a runnable process gets a
whole core (1.0); with two CPU-bound processes beside `make test -n 2` on 2 cores, about half
of one (2.0). ``TEST_SLOWDOWN`` sets it instead (e.g. 1 to check the limits as written).
"""

from __future__ import annotations

import math
import os
import time

MAX_SLOWDOWN = 10.0  # past this the machine is not fit to run the suite; limits stop growing


def measure(cpu_seconds: float = 0.4) -> float:
    """Wall time / CPU time of a busy loop of ``cpu_seconds`` of CPU (at least 1)."""
    wall0, cpu0 = time.perf_counter(), time.process_time()
    while time.process_time() - cpu0 < cpu_seconds:
        sum(range(1000))
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    return min(MAX_SLOWDOWN, max(1.0, wall / cpu))


SLOWDOWN = float(os.environ["TEST_SLOWDOWN"]) if os.environ.get("TEST_SLOWDOWN") else measure()


def scaled(seconds: float) -> int:
    """``seconds`` scaled by the slowdown, whole seconds (the grader's messages print them)."""
    return int(math.ceil(seconds * SLOWDOWN))
