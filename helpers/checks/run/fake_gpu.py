"""``fakegpu``: a second device on a CPU-only machine, so that device mistakes show without a GPU.

A tensor on ``fakegpu`` keeps its values in a CPU tensor (``.inner``) but reports
``device='fakegpu:0'``, and, as a CUDA or Apple GPU does, refuses to meet a CPU tensor in one
operation ("Expected all tensors to be on the same device..."), with the exceptions a GPU makes:
a 0-dim CPU tensor (a scalar), CPU indices of ``x[idx]``, and copies between devices.
A learner's ``torch.zeros(T, T)`` without ``device=`` is a CPU tensor here as on a GPU, and the
check's "an output tensor is on another device" or the mixing error shows it.

It is PyTorch's ``privateuseone`` device, renamed (``torch.utils.backend_registration``'s
Python backend, where this torch has it: :func:`available`), with three kernels of its own (a
new tensor, a copy into it: where every factory function and ``.to("fakegpu")`` starts) and a
``__torch_dispatch__`` wrapper subclass that runs every other operation on the CPU values. On a
CPU-only machine the checks, inline and in the grader's kernels, run the learner's code there
(runner.probe_device); ``check(..., device="fakegpu")`` asks for it by name. Run on the
course's code of e79a8d0 it failed the five exercises the first GPU run failed
(shared/gpu/measured), at the same cases with the same message, and no other.
"""

from __future__ import annotations

import functools

import torch
from torch.utils._pytree import tree_flatten, tree_map

NAME = "fakegpu"
#: torch's words for .numpy() on a GPU tensor
NO_NUMPY = (
    f"can't convert {NAME}:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
    "to host memory first."
)
aten = torch.ops.aten
# operations that may take tensors of two devices on a GPU: copies, and x[idx] with CPU indices
_CROSS_DEVICE = {aten.copy_.default, aten._to_copy.default}
_INDEXING = {aten.index.Tensor, aten.index_put.default, aten.index_put_.default}


@functools.cache
def available() -> bool:
    """Whether this torch can make the device: it has the Python backend for privateuseone
    (2.13 and 2.14 have it, 2.3 has not; there the checks run on the CPU alone)."""
    try:
        fakegpu()
    except Exception:
        return False
    return True


def fakegpu() -> torch.device:
    """``fakegpu:0``, registered on first use (the renaming holds for the process)."""
    if torch._C._get_privateuse1_backend_name() != NAME:
        from torch.utils import backend_registration

        backend_registration._setup_privateuseone_for_python_backend(NAME)
        _register_kernels()
    return torch.device(NAME, 0)


_LIBRARY = []  # the kernels live as long as their torch.library.Library


def _register_kernels() -> None:
    """The backend's own kernels: a new tensor there (every factory function and ``.to()``
    starts from one of these) and a copy into it. All else dispatches on the wrapper."""
    lib = torch.library.Library("aten", "IMPL")
    _LIBRARY.append(lib)

    def empty(size, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
        return FakeGpuTensor(torch.empty(size, dtype=dtype, memory_format=memory_format))

    def empty_strided(size, stride, dtype=None, layout=None, device=None, pin_memory=None):
        return FakeGpuTensor(torch.empty_strided(size, stride, dtype=dtype))

    def copy_from(src, dst, non_blocking=False):
        _inner(dst).copy_(_inner(src))
        return dst

    lib.impl("empty.memory_format", empty, "PrivateUse1")
    lib.impl("empty_strided", empty_strided, "PrivateUse1")
    lib.impl("_copy_from", copy_from, "PrivateUse1")


def on_fakegpu(t) -> bool:
    """A tensor on fakegpu (by its device: a second copy of this module makes another class)."""
    return isinstance(t, torch.Tensor) and t.device.type == NAME


def _inner(t):
    return t.inner if on_fakegpu(t) else t


def named(name: str | torch.device) -> torch.device:
    """``torch.device(name)``, where ``fakegpu`` is registered first."""
    return fakegpu() if str(name).split(":")[0] == NAME else torch.device(name)


class FakeGpuTensor(torch.Tensor):
    """A CPU tensor (``inner``) that says it is on ``fakegpu``."""

    inner: torch.Tensor

    @staticmethod
    def __new__(cls, inner: torch.Tensor):
        t = torch.Tensor._make_wrapper_subclass(
            cls,
            inner.size(),
            strides=inner.stride(),
            storage_offset=inner.storage_offset(),
            dtype=inner.dtype,
            device=fakegpu(),
            requires_grad=inner.requires_grad,
            # sizes and strides asked of ``inner`` each time (through __torch_dispatch__): an
            # out= kernel (torch.arange(n, device=...) fills an empty tensor) resizes it
            dispatch_sizes_strides_policy="sizes",
        )
        t.inner = inner
        return t

    def __repr__(self, *, tensor_contents=None) -> str:
        return repr(self.inner).replace("tensor(", "fakegpu_tensor(", 1)

    def numpy(self, *args, **kwargs):
        raise TypeError(NO_NUMPY)

    def tolist(self):
        return self.inner.tolist()

    __torch_function__ = torch._C._disabled_torch_function_impl

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        return _dispatch(func, args, kwargs or {})


def _mixed(func, args, kwargs) -> torch.Tensor | None:
    """A CPU tensor this operation meets beside a fakegpu one, where a GPU would refuse it."""
    if func in _CROSS_DEVICE:
        return None
    checked = (args[:1] + args[2:], kwargs) if func in _INDEXING else (args, kwargs)
    leaves = tree_flatten(checked)[0]
    if not any(on_fakegpu(t) for t in leaves):
        return None
    return next(
        (t for t in leaves if isinstance(t, torch.Tensor) and not on_fakegpu(t) and t.dim() > 0),
        None,
    )


def _dispatch(func, args, kwargs):
    cpu = _mixed(func, args, kwargs)
    if cpu is not None:
        raise RuntimeError(
            "Expected all tensors to be on the same device, but found at least two devices, "
            f"{NAME}:0 and {cpu.device}!"
        )
    leaves = tree_flatten((args, kwargs))[0]
    on_fake = any(on_fakegpu(t) for t in leaves)
    if kwargs.get("device") is not None:  # .to(device), new_zeros(..., device=)...
        on_fake = torch.device(kwargs["device"]).type == NAME
        if on_fake:
            kwargs = dict(kwargs, device=torch.device("cpu"))
    owners = {}  # an in-place operation returns its input: the same wrapper, not a new one

    def unwrap(t):
        if on_fakegpu(t):
            owners[id(t.inner)] = t
            return t.inner
        return t

    args, kwargs = tree_map(unwrap, (args, kwargs))
    out = func(*args, **kwargs)

    def wrap(t):
        if not isinstance(t, torch.Tensor):
            return t
        if id(t) in owners:
            return owners[id(t)]
        return FakeGpuTensor(t) if on_fake else t

    return tree_map(wrap, out)
