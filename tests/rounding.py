"""Another float rounding for the notebooks' kernels in nbval (conftest.py): a stored output that
holds only on the CPU that wrote it fails in ``make test``, not on a learner's laptop.

``ROUNDING`` runs torch's portable CPU kernels instead of its vectorized ones
(``ATEN_CPU_CAPABILITY=default``) and MKL's compatible code path for matrix products
(``MKL_CBWR=COMPATIBLE``), as a CPU without AVX2 would: every sum, product and exponential can
differ in its last bits, and a training run drifts (a rounded accuracy of a trained model moves
by a digit). ``python -m helpers execute`` stores the outputs with the machine's own rounding.
A variable already set in the environment wins. It costs the notebooks about a third more CPU
time (torch's portable kernels are slower).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

ROUNDING = {"ATEN_CPU_CAPABILITY": "default", "MKL_CBWR": "COMPATIBLE"}


@contextmanager
def other_rounding() -> Iterator[None]:
    """``ROUNDING`` in this process's environment while a kernel starts (it inherits it), then
    as before: the tests that run in this process keep the machine's own."""
    added = {k: v for k, v in ROUNDING.items() if k not in os.environ}
    os.environ.update(added)
    try:
        yield
    finally:
        for k in added:
            os.environ.pop(k, None)
