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
    def __init__(self, name: str, source: str, legacy: str | None = None) -> None:
        self.name = name
        self.cpu_dispatch_ptr: Callable[..., Any] | None = None
        self.site = FrameSite("native", name, source, f"at::native::{name}",
                              legacy=legacy or f"{name}(iter->device_type(), ...)")

    def __call__(self, device_type: DeviceType, *args: Any) -> Any:
        TORCH_CHECK(device_type == DeviceType.CPU, "DispatchStub: missing kernel for ",
                    device_type.lower())
        kernel = self.cpu_dispatch_ptr
        TORCH_CHECK(kernel is not None, "DispatchStub: missing CPU kernel for ", self.name)
        rec = recorder.current
        if rec is None:
            return kernel(*args)  # type: ignore[misc]
        rec.begin(self.site, {"args": {"device_type": "CPU",
                                       "kernel": getattr(kernel, "__name__", "?"),
                                       **{f"arg{i}": summarize(a) for i, a in enumerate(args)}}})
        try:
            return kernel(*args)  # type: ignore[misc]
        finally:
            rec.end(self.site, {})


def DECLARE_DISPATCH(name: str, source: str,  # noqa: N802
                     legacy: str | None = None) -> DispatchStub:
    """`legacy`: the 2019 step, when it was no stub (seed 000's uniform_ went through TH)."""
    return DispatchStub(name, source, legacy)


def REGISTER_DISPATCH(stub: DispatchStub, kernel: Callable[..., Any]) -> None:  # noqa: N802
    stub.cpu_dispatch_ptr = kernel
