"""Device choice and seeding: the same printed results on a CPU, an Apple GPU or a CUDA GPU."""

from __future__ import annotations

import os
import random
from typing import Any

import numpy as np
import torch


def get_device() -> torch.device:
    """Where the series runs its models: the CPU, unless ``ATTN2VIT_DEVICE`` names another
    (``cuda``, ``mps``). ``check()`` runs the learner's code there, or on its stand-in for a
    GPU where that is the CPU (checks/run/fake_gpu.py).

    The CPU even where a GPU is present: the models here are tiny, and a GPU spends longer
    starting and launching its kernels than computing them. The whole series took 165 s on an
    NVIDIA H200 against 79 s on 2 laptop CPU cores (2026-11-26), every notebook slower. The
    printed results are the same either way; ``accelerator()`` says what GPU there is.
    """
    forced = os.environ.get("ATTN2VIT_DEVICE")
    return torch.device(forced) if forced else torch.device("cpu")


def accelerator() -> torch.device | None:
    """The GPU torch finds here (cuda, then Apple's mps), or None."""
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return torch.device("mps")
    return None


def disable_tf32() -> None:
    """TF32 matmuls differ from float32 in the 4th digit; the series keeps them off."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")


def set_threads() -> int:
    """One CPU thread for torch (``ATTN2VIT_THREADS=N`` asks for N); returns the number set.

    The series' models are tiny: on their small matrices one thread is as fast as several, and
    it stays as fast when other programs keep the cores busy. With one thread per core, every
    matmul waits for its slowest thread, and a core taken by another program stalls them all:
    notebook 06's sorting run took 85 s instead of 2.7 s next to other work (3.7 s on one thread).
    """
    threads = max(1, int(os.environ.get("ATTN2VIT_THREADS") or 1))
    torch.set_num_threads(threads)
    return threads


def seed_everything(seed: int = 0) -> torch.Generator:
    """Seed Python, NumPy and torch (all devices), set the CPU threads (``set_threads``: one)
    and return a CPU generator with that seed.

    Make random inputs on the CPU with the returned generator, then move them: a CPU
    generator gives the same numbers on every machine, a CUDA one does not.
    """
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # also seeds cuda and mps
    disable_tf32()
    set_threads()  # the first cell of every notebook calls this: one setting for the series
    return torch.Generator().manual_seed(seed)


def randn(
    *shape: int, generator: torch.Generator, dtype=torch.float32, device=None
) -> torch.Tensor:
    """Standard normal numbers drawn on the CPU from ``generator``, then moved to ``device``."""
    return torch.randn(*shape, generator=generator, dtype=dtype).to(device or "cpu")


def environment_report() -> dict[str, str]:
    """Versions and the device, for notebook 00 and bug reports."""
    import platform

    gpu = accelerator()
    return {
        "python": platform.python_version(),
        "torch": torch.__version__.split("+")[0],
        "numpy": np.__version__,
        "device": get_device().type,
        "gpu": gpu.type if gpu is not None else "none",
        "threads": str(torch.get_num_threads()),
    }


def to_device(x: Any, device) -> Any:
    """Tensors in a (nested) tuple, list or dict moved to ``device``; anything else as is."""
    if device is None:
        return x
    if isinstance(x, torch.Tensor):
        return x.to(device)
    if isinstance(x, (tuple, list)):
        return type(x)(to_device(v, device) for v in x)
    if isinstance(x, dict):
        return {k: to_device(v, device) for k, v in x.items()}
    return x


disable_tf32()
