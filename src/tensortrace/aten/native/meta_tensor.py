"""The Meta backend's factories: empty and empty_strided on the meta device.

Mirrors `aten/src/ATen/native/MetaTensor.cpp` (empty_meta_symint, empty_strided_meta_symint),
which call at::detail::empty_meta / empty_strided_meta (EmptyTensor.cpp): a TensorImpl with
sizes, strides and dtype over a StorageImpl whose DataPtr is null (the MetaAllocator).
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten import empty_tensor
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.tensor_factories import _check_memory_format
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.device import Device
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "aten/src/ATen/native/MetaTensor.cpp"


@native_function(SOURCE)
def empty_meta_symint(
    size: Sequence[int],
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
    memory_format: str | None = None,
) -> Tensor:
    _check_memory_format(memory_format)
    return empty_tensor.empty_meta(size, dtype, device, layout)


@native_function(SOURCE)
def empty_strided_meta_symint(
    size: Sequence[int],
    stride: Sequence[int],
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    return empty_tensor.empty_strided_meta(size, stride, dtype, device, layout)
