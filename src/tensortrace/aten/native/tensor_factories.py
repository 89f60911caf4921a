"""Factory functions: empty, empty_strided, rand.

Mirrors `aten/src/ATen/native/TensorFactories.cpp`. `rand` is the seed's first step: it makes
an empty tensor (through the dispatcher, so `aten::empty` nests under `aten::rand`, as in
torch.profiler) and fills it in place with `uniform_(0, 1)`.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten import empty_tensor
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.device import Device
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "aten/src/ATen/native/TensorFactories.cpp"


def _check_memory_format(memory_format: str | None) -> None:
    TORCH_CHECK(memory_format in (None, "contiguous_format", "preserve_format"),
                "tensortrace supports only torch.contiguous_format, got ", memory_format)


@native_function(SOURCE, legacy="empty_cpu")
def empty_cpu(size: Sequence[int], dtype: ScalarType | None = None, layout: str | None = None,
              device: Device | None = None, pin_memory: bool | None = None,
              memory_format: str | None = None) -> Tensor:
    _check_memory_format(memory_format)
    return empty_tensor.empty_cpu(size, dtype, device, pin_memory)


@native_function(SOURCE, legacy="at::empty_strided")
def empty_strided_cpu(size: Sequence[int], stride: Sequence[int],
                      dtype: ScalarType | None = None, layout: str | None = None,
                      device: Device | None = None, pin_memory: bool | None = None) -> Tensor:
    return empty_tensor.empty_strided_cpu(size, stride, dtype, device, pin_memory)


@native_function(SOURCE, legacy="at::native::rand (TypeDefault::rand)")
def rand(size: Sequence[int], generator: object = None, dtype: ScalarType | None = None,
         layout: str | None = None, device: Device | None = None,
         pin_memory: bool | None = None) -> Tensor:
    from tensortrace.aten import functions as at

    result = at.empty(size, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    return result.uniform_(0, 1, generator=generator)


@native_function(SOURCE, legacy="at::native::rand_out")
def rand_out(size: Sequence[int], generator: object = None, out: Tensor | None = None) -> Tensor:
    from tensortrace.aten.native.resize import resize_output

    assert out is not None
    resize_output(out, size)
    return out.uniform_(0, 1, generator=generator)
