"""The random factories: rand, randint and randn, with their _out and _like forms.

Mirrors the random section of `aten/src/ATen/native/TensorFactories.cpp`: each is at::empty
(or empty_like, or the out tensor resized) filled in place by random_(low, high),
uniform_(0, 1) or normal_(0, 1), which draw from the generator (distributions.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.tensor_factories import SOURCE, _empty_like
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.device import Device
from tensortrace.c10.scalar_type import ScalarType


@native_function(SOURCE, legacy="at::native::randint")
def randint(
    high: int,
    size: Sequence[int],
    low: int = 0,
    generator: object = None,
    dtype: ScalarType | None = ScalarType.Long,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    """randint(high, size) is randint(0, high, size): empty, then random_(low, high)."""
    result = at.empty(size, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    return result.random_(low, high, generator=generator)


@native_function(SOURCE, legacy="at::native::randint_out")
def randint_out(
    high: int,
    size: Sequence[int],
    low: int = 0,
    generator: object = None,
    out: Tensor | None = None,
) -> Tensor:
    assert out is not None
    out.resize_(size)
    return out.random_(low, high, generator=generator)


@native_function(SOURCE, legacy="at::native::randint_like")
def randint_like(
    self: Tensor,
    high: int,
    low: int = 0,
    generator: object = None,
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
    memory_format: str | None = None,
) -> Tensor:
    result = _empty_like(self, dtype, layout, device, pin_memory, memory_format)
    return result.random_(low, high, generator=generator)


@native_function(SOURCE, legacy="at::native::rand_like")
def rand_like(
    self: Tensor,
    generator: object = None,
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
    memory_format: str | None = None,
) -> Tensor:
    result = _empty_like(self, dtype, layout, device, pin_memory, memory_format)
    return result.uniform_(0, 1, generator=generator)


@native_function(SOURCE, legacy="at::native::rand (TypeDefault::rand)")
def rand(
    size: Sequence[int],
    generator: object = None,
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    result = at.empty(size, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    return result.uniform_(0, 1, generator=generator)


@native_function(SOURCE, legacy="at::native::rand_out")
def rand_out(size: Sequence[int], generator: object = None, out: Tensor | None = None) -> Tensor:
    assert out is not None
    out.resize_(size)  # TensorFactories.cpp: result.resize_(size), no resize_output warning
    return out.uniform_(0, 1, generator=generator)


@native_function(SOURCE, legacy="at::native::randn")
def randn(
    size: Sequence[int],
    generator: object = None,
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> Tensor:
    result = at.empty(size, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    return result.normal_(0, 1, generator=generator)


@native_function(SOURCE, legacy="at::native::randn_out")
def randn_out(size: Sequence[int], generator: object = None, out: Tensor | None = None) -> Tensor:
    assert out is not None
    out.resize_(size)
    return out.normal_(0, 1, generator=generator)


@native_function(SOURCE, legacy="at::native::randn_like")
def randn_like(
    self: Tensor,
    generator: object = None,
    dtype: ScalarType | None = None,
    layout: str | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
    memory_format: str | None = None,
) -> Tensor:
    result = _empty_like(self, dtype, layout, device, pin_memory, memory_format)
    return result.normal_(0, 1, generator=generator)
