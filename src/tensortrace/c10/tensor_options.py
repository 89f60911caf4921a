"""TensorOptions: the dtype, device, layout and pinned-memory request of a new tensor.

Mirrors `c10/core/TensorOptions.h`, including `computeDispatchKey`, which BackendSelect uses to
turn a factory's options into the backend key it redispatches to.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tensortrace.c10.device import Device, kCPU, kCUDA, kMeta
from tensortrace.c10.dispatch_key import DispatchKey
from tensortrace.c10.exception import TORCH_CHECK, torchCheckFail
from tensortrace.c10.scalar_type import ScalarType


class Layout:
    """torch.strided is the only layout modelled (sparse layouts are not)."""

    strided = "strided"


@dataclass(frozen=True, slots=True)
class TensorOptions:
    dtype: ScalarType | None = None
    device: Device | None = None
    layout: str | None = None
    pinned_memory: bool | None = None

    def with_dtype(self, dtype: ScalarType | None) -> TensorOptions:
        return replace(self, dtype=dtype)


# the backend key of each device type, with its members read once (Note [Enum members read once])
_BACKEND_KEYS = {kCPU: DispatchKey.CPU, kCUDA: DispatchKey.CUDA, kMeta: DispatchKey.Meta}


def computeDispatchKey(
    dtype: ScalarType | None, layout: str | None, device: Device | None
) -> DispatchKey:
    """The backend key for a factory's options (c10::computeDispatchKey)."""
    device_type = device.type_ if device is not None else kCPU
    if layout is not None and layout != Layout.strided:  # Note [TORCH_CHECK tests first]
        torchCheckFail("Unsupported layout: ", layout)
    key = _BACKEND_KEYS.get(device_type)
    if key is not None:
        return key
    TORCH_CHECK(
        False,
        "Could not run this factory on device '",
        device,
        "': tensortrace has CPU and (emulated) CUDA backends only",
    )
    raise AssertionError  # unreachable
