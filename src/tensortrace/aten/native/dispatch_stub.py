"""DispatchStub: one kernel pointer per device type, filled in by the kernel's own file.

Mirrors `aten/src/ATen/native/DispatchStub.h`: DECLARE_DISPATCH in the op's file, and
REGISTER_DISPATCH in the per-CPU-capability kernel file (`native/cpu/*Kernel.cpp`) or, compiled
by nvcc, in the CUDA kernel file (`native/cuda/*.cu`, where the same macro expands to
REGISTER_CUDA_DISPATCH). Calling the stub with a device type jumps to that device's kernel.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from tensortrace.aten.dispatcher import untraced
from tensortrace.c10.device import DeviceType, kCPU, kMeta
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.trace import FrameSite, recorder
from tensortrace.trace.arguments import describe_args

_DEVICE_TYPE_NAMES = {t: t.name for t in DeviceType}


@functools.cache
def _arg_names(n: int) -> tuple[str, ...]:
    """The names a stub's frame gives its kernel's n arguments: arg0, arg1, ..."""
    return tuple(f"arg{i}" for i in range(n))


# Note [A meta tensor's kernel is no call]
# A native function registered for the Meta key as well (`CPU, CUDA, Meta: where`) runs its
# shape and dtype steps (TensorIterator's compute_shape / compute_types, the output's
# allocation on the meta device) and then calls its stub with DeviceType.Meta: there is no
# data to loop over, so the stub returns at once and the trace shows no kernel frame. ATen gets
# the same effect from the Python meta kernels of torch/_meta_registrations.py and the
# decompositions it registers for Meta; here the one native code path serves, minus the loop.

ALL_STUBS: dict[str, DispatchStub] = {}  # every DECLARE_DISPATCH, by name


class DispatchStub:
    def __init__(self, name: str, source: str, legacy: str | None = None) -> None:
        ALL_STUBS[name] = self
        self.name = name
        self.cpu_dispatch_ptr: Callable[..., Any] | None = None
        # the CPU kernel without its @traced wrapper (Note [Kernels called unwrapped while idle])
        self.cpu_idle_ptr: Callable[..., Any] | None = None
        self.cuda_dispatch_ptr: Callable[..., Any] | None = None
        self.site = FrameSite(
            "native",
            name,
            source,
            f"at::native::{name}",
            legacy=legacy or f"{name}(iter->device_type(), ...)",
        )

    def get_call_ptr(self, device_type: DeviceType) -> Callable[..., Any]:
        if device_type == DeviceType.CPU:
            kernel = self.cpu_dispatch_ptr
            if kernel is None:  # Note [Native modules imported on first lookup] in registry.py
                kernel = self._load_cpu_kernel()
            TORCH_CHECK(kernel is not None, "DispatchStub: missing CPU kernel for ", self.name)
        elif device_type == DeviceType.CUDA:
            kernel = self.cuda_dispatch_ptr
            if kernel is None:
                kernel = self._load_cuda_kernel()
            TORCH_CHECK(kernel is not None, "DispatchStub: missing CUDA kernel")
        else:
            TORCH_CHECK(False, "DispatchStub: unsupported device type", device_type.lower())
        return kernel  # type: ignore[return-value]

    def _load_cpu_kernel(self) -> Callable[..., Any] | None:
        """Import the module that registers this stub's CPU kernel (its REGISTER_DISPATCH)."""
        from tensortrace.aten.generated.native_index import CPU_KERNELS
        from tensortrace.aten.native.registry import import_native

        module = CPU_KERNELS.get(self.name)
        if module is not None:
            import_native(module)
        else:  # not indexed (a stale index): every module
            from tensortrace.aten import native

            native.import_all()
        return self.cpu_dispatch_ptr

    def _load_cuda_kernel(self) -> Callable[..., Any] | None:
        """This stub's CUDA kernel: the module that registers its own (REGISTER_CUDA_DISPATCH)
        imported, else one made from its CPU kernel (cuda/kernels.py's register_cuda_kernel)."""
        from tensortrace.aten.generated.native_index import CUDA_KERNELS
        from tensortrace.aten.native.registry import import_native

        module = CUDA_KERNELS.get(self.name)
        if module is not None:
            import_native(module)
        if self.cuda_dispatch_ptr is None and (
            self.cpu_dispatch_ptr is not None or self._load_cpu_kernel() is not None
        ):
            from tensortrace.aten.native.cuda.kernels import register_cuda_kernel

            register_cuda_kernel(self.name, self)
        return self.cuda_dispatch_ptr

    def __call__(self, device_type: DeviceType, *args: Any) -> Any:
        rec = recorder.current
        if rec is None:  # Note [Kernels called unwrapped while idle]
            # kCPU, kMeta: Note [Enum members read once]
            idle = self.cpu_idle_ptr if device_type is kCPU else None
            if idle is not None:
                return idle(*args)
            if device_type is kMeta:
                return None  # Note [A meta tensor's kernel is no call]
            return self.get_call_ptr(device_type)(*args)
        if device_type is kMeta:
            return None
        kernel = (self.cpu_dispatch_ptr if device_type is kCPU else None) or self.get_call_ptr(
            device_type
        )
        described = {
            # an enum's .name is two Python calls: the names are read from a table
            "device_type": _DEVICE_TYPE_NAMES[device_type],
            "kernel": getattr(kernel, "__name__", "?"),
            **describe_args(_arg_names(len(args)), args, {}),
        }
        # a stub's frame ends with no result (its kernels write into the iterator's outputs)
        return recorder.record_call(
            rec, self.site, {"args": described}, kernel, args, record_result=False
        )


def DECLARE_DISPATCH(
    name: str,
    source: str,
    legacy: str | None = None,
) -> DispatchStub:
    """`legacy`: the 2019 step, when it was no stub (seed 000's uniform_ went through TH)."""
    return DispatchStub(name, source, legacy)


def REGISTER_DISPATCH(stub: DispatchStub, kernel: Callable[..., Any]) -> None:
    stub.cpu_dispatch_ptr = kernel
    stub.cpu_idle_ptr = untraced(kernel)


def REGISTER_CUDA_DISPATCH(stub: DispatchStub, kernel: Callable[..., Any]) -> None:
    """REGISTER_DISPATCH as a `.cu` file compiles it."""
    stub.cuda_dispatch_ptr = kernel
