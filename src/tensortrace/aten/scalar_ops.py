"""Python numbers as tensors: scalar_to_tensor and wrapped_scalar_tensor.

Mirrors `aten/src/ATen/ScalarOps.h` / `ScalarOps.cpp`. A number passed where an op wants a
Tensor (`x + 1`) becomes a 0-dim CPU tensor marked as a *wrapped number*, so type promotion
treats it as weaker than any tensor (Note in native/type_properties.py). Making it allocates
(8 bytes for an int64 or a double) without a dispatcher call, as torch.profiler shows.
"""

from __future__ import annotations

from tensortrace.aten.empty_tensor import empty_cpu
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

Scalar = bool | int | float | complex


def scalar_type_of(s: Scalar) -> ScalarType:
    """c10::Scalar::type(): bool -> Bool, int -> Long, float -> Double, complex ->
    ComplexDouble."""
    if isinstance(s, complex):
        return ScalarType.ComplexDouble
    if isinstance(s, bool):
        return ScalarType.Bool
    if isinstance(s, int):
        return ScalarType.Long
    return ScalarType.Double


@traced("native", "at::scalar_to_tensor", "aten/src/ATen/ScalarOps.h", legacy="scalar_to_tensor")
def scalar_to_tensor(s: Scalar, dtype: ScalarType | None = None) -> Tensor:
    """at::detail::scalar_tensor_static: a 0-dim CPU tensor holding `s`."""
    t = empty_cpu((), dtype if dtype is not None else scalar_type_of(s))
    t.numpy_view()[()] = s
    return t


def wrapped_scalar_tensor(s: Scalar) -> Tensor:
    t = scalar_to_tensor(s)
    t.unsafeGetTensorImpl().is_wrapped_number_ = True
    return t
