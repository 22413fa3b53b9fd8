"""Probe pieces shared by several notebooks: switched-off built-ins, random masks, and the
runner that hands the check's device to a function."""

from __future__ import annotations

import torch

from .framework import rand_bool, randint

# the built-ins a from-scratch attention must not call (F.scaled_dot_product_attention is
# torch._C._nn.scaled_dot_product_attention under another name)
ATTENTION_BUILTINS = (
    "torch._C._nn.scaled_dot_product_attention",
    "torch.nn.functional.scaled_dot_product_attention",
    "torch.nn.functional.multi_head_attention_forward",
)


def mask_with_a_key_per_row(gen, *shape: int) -> torch.Tensor:
    """A random boolean mask in which every query may attend to at least one key."""
    m = rand_bool(gen, *shape, p=0.6)
    first = randint(gen, 0, shape[-1], *shape[:-1])
    return m | torch.nn.functional.one_hot(first, shape[-1]).bool()


class DeviceProbeMixin:
    """Probes with ``runner="device"`` call ``candidate(*args, device=<the check's device>)``."""

    def run_device(self, probe, candidate, device):
        return candidate(*probe.args, **probe.kwargs, device=device)
