"""The new_* factories: x.new_empty / new_zeros / new_ones / new_full.

Mirrors `new_empty_symint`, `new_full`, `new_zeros` and `new_ones` in
`aten/src/ATen/native/TensorFactories.cpp`: a tensor of the given size with self's dtype and
device unless told otherwise (never self's strides: unlike empty_like, they start from a size),
made by at::empty through the dispatcher and filled in place.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.expand_utils import infer_size
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.device import Device
from tensortrace.c10.scalar import Scalar
from tensortrace.c10.scalar_type import ScalarType

SOURCE = "aten/src/ATen/native/TensorFactories.cpp"


@native_function(SOURCE, name="new_empty_symint", legacy="at::native::new_empty")
def new_empty_symint(
    self: Tensor,
    size: Sequence[int],
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    return at.empty(
        list(size),
        dtype=self.scalar_type() if dtype is None else dtype,
        layout=layout,
        device=self.device() if device is None else device,
        pin_memory=pin_memory,
    )


@native_function(SOURCE, name="new_full", legacy="at::native::new_full")
def new_full(
    self: Tensor,
    size: Sequence[int],
    fill_value: Scalar,
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    r = self.new_empty(list(size), dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    return r.fill_(fill_value)


@native_function(SOURCE, name="new_zeros", legacy="at::native::new_zeros")
def new_zeros(
    self: Tensor,
    size: Sequence[int],
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    r = self.new_empty(list(size), dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    return r.zero_()


@native_function(SOURCE, name="new_ones", legacy="at::native::new_ones")
def new_ones(
    self: Tensor,
    size: Sequence[int],
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    r = self.new_empty(list(size), dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    return r.fill_(1.0)


@native_function(
    "aten/src/ATen/native/TensorConversions.cpp", name="type_as", legacy="at::native::type_as"
)
def type_as(self: Tensor, other: Tensor) -> Tensor:
    """self.to(other.options()): other's dtype (and device), self itself when they match."""
    return self.to(other.scalar_type())


@native_function(
    "aten/src/ATen/native/TensorShape.cpp",
    name="broadcast_tensors",
    legacy="at::native::broadcast_tensors",
)
def broadcast_tensors(tensors: Sequence[Tensor]) -> list[Tensor]:
    """expand_outplace: every tensor expanded to the tensors' common broadcast shape."""
    shape: tuple[int, ...] = ()
    for t in tensors:
        shape = tuple(infer_size(shape, t.sizes()))
    return [t if tuple(t.sizes()) == shape else t.expand(list(shape)) for t in tensors]
