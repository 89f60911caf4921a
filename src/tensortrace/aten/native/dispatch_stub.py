"""DispatchStub: one kernel pointer per device type, filled in by the kernel's own file.

Mirrors `aten/src/ATen/native/DispatchStub.h`: DECLARE_DISPATCH in the op's file, and
REGISTER_DISPATCH in the per-CPU-capability kernel file (`native/cpu/*Kernel.cpp`). Calling the
stub with a device type jumps to that device's kernel; here only the CPU has one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensortrace.c10.device import DeviceType
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.trace import FrameSite, recorder, summarize


class DispatchStub:
    def __init__(self, name: str, source: str) -> None:
        self.name = name
        self.cpu_dispatch_ptr: Callable[..., Any] | None = None
        self.site = FrameSite("native", name, source, f"at::native::{name}",
                              legacy=f"{name}(iter->device_type(), ...)")

    def __call__(self, device_type: DeviceType, *args: Any) -> Any:
        TORCH_CHECK(device_type == DeviceType.CPU, "DispatchStub: missing kernel for ",
                    device_type.lower())
        kernel = self.cpu_dispatch_ptr
        TORCH_CHECK(kernel is not None, "DispatchStub: missing CPU kernel for ", self.name)
        assert kernel is not None  # for the type checker: TORCH_CHECK raised otherwise
        rec = recorder.current
        if rec is None:
            return kernel(*args)
        described = {"device_type": "CPU", "kernel": getattr(kernel, "__name__", "?"),
                     **{f"arg{i}": summarize(a) for i, a in enumerate(args)}}
        # a stub's frame ends with no result (its kernels write into the iterator's outputs)
        return recorder.record_call(rec, self.site, {"args": described}, kernel, args,
                                    record_result=False)


def DECLARE_DISPATCH(name: str, source: str) -> DispatchStub:
    return DispatchStub(name, source)


def REGISTER_DISPATCH(stub: DispatchStub, kernel: Callable[..., Any]) -> None:
    stub.cpu_dispatch_ptr = kernel
