"""From Attention to ViT: the package every notebook imports.

from helpers import check, get_device, seed_everything, plotting
"""

from .checks import EXERCISES, CheckResult, check
from .device import disable_tf32, get_device, randn, seed_everything, set_threads
from .my_blocks import blocks_in_use

__all__ = [
    "check",
    "blocks_in_use",
    "CheckResult",
    "EXERCISES",
    "get_device",
    "seed_everything",
    "set_threads",
    "randn",
    "disable_tf32",
    "plotting",
    "widgets",
    "data",
    "training",
    "blocks",
]


def __getattr__(name):  # plotting, widgets... load on first use: matplotlib is slow to import
    if name in ("plotting", "widgets", "data", "training", "blocks"):
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(name)
