"""isclose, allclose, equal, clip and the one-argument where.

Mirrors `aten/src/ATen/native/TensorCompare.cpp` (isclose, allclose, clip,
where(condition)), `ReduceOps.cpp` (cpu_equal) and `TensorAdvancedIndexing.cpp`
(nonzero_numpy). They are composites: isclose is built from ==, !=, abs, sub, <= and the
in-place |= and &=, so the trace shows the ops Note [closeness] describes; allclose is
isclose(...).all().item(); where(condition) is nonzero_numpy, nonzero().unbind(1).
"""

from __future__ import annotations

import math

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.scalar_ops import Scalar, wrapped_scalar_tensor
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.default_dtype import get_default_dtype
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import (
    ScalarType,
    isComplexType,
    isFloatingType,
    isIntegralType,
)
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/TensorCompare.cpp"


@native_function(SOURCE)
def isclose(
    self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Tensor:
    """Note [closeness]: equal (NaN too with equal_nan), or |a - b| finite and
    <= atol + |rtol * b|."""
    TORCH_CHECK(
        self.scalar_type() == other.scalar_type(),
        self.scalar_type(),
        " did not match ",
        other.scalar_type(),
    )
    TORCH_CHECK(rtol >= 0, "rtol must be greater than or equal to zero, but got ", rtol)
    TORCH_CHECK(atol >= 0, "atol must be greater than or equal to zero, but got ", atol)
    close = self.eq(other)
    if equal_nan and (isFloatingType(self.scalar_type()) or isComplexType(self.scalar_type())):
        close.__ior__(self.ne(self).__iand__(other.ne(other)))  # isnan: x != x
    if rtol == 0 and atol == 0:
        return close
    default = get_default_dtype()
    cast_self = self.to(default) if self.scalar_type() == ScalarType.Bool else self
    cast_other = other.to(default) if isIntegralType(self.scalar_type(), True) else other
    # `atol + (rtol * cast_other).abs()`: C++ operators wrap the doubles (mul.Tensor, add.Tensor)
    allowed_error = at.add(
        at.mul(cast_other, wrapped_scalar_tensor(rtol)).abs(), wrapped_scalar_tensor(atol)
    )
    actual_error = cast_self.sub(cast_other).abs()
    # isfinite(actual_error): not NaN and not infinite (isnan/isfinite are part A's ops)
    finite = actual_error.eq(actual_error).__iand__(actual_error.ne(math.inf))
    close.__ior__(finite.__iand__(actual_error.le(allowed_error)))
    return close


@native_function(SOURCE)
def allclose(
    self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    return bool(at.isclose(self, other, rtol, atol, equal_nan).all().item())


@traced(
    "kernel",
    "at::native::cpu_equal (loop)",
    "aten/src/ATen/native/ReduceOps.cpp",
    legacy="cpu_equal",
)
def _equal_kernel(self: Tensor, other: Tensor) -> bool:
    return bool(np.array_equal(self.numpy_view(), other.numpy_view()))


@native_function("aten/src/ATen/native/ReduceOps.cpp")
def cpu_equal(self: Tensor, other: Tensor) -> bool:
    """Same sizes and every element equal (NaN is not equal to itself); tensors of two dtypes
    compare their values."""
    if self.sizes() != other.sizes():
        return False
    if self.numel() == 0:
        return True
    return _equal_kernel(self, other)


@native_function(SOURCE)
def clip(
    self: Tensor,
    min: Scalar | Tensor | None = None,  # noqa: A002
    max: Scalar | Tensor | None = None,
) -> Tensor:  # noqa: A002
    return at.clamp(self, min, max)


@native_function(SOURCE)
def clip_(
    self: Tensor,
    min: Scalar | Tensor | None = None,  # noqa: A002
    max: Scalar | Tensor | None = None,
) -> Tensor:  # noqa: A002
    return at.clamp_(self, min, max)


@native_function("aten/src/ATen/native/TensorAdvancedIndexing.cpp")
def nonzero_numpy(self: Tensor) -> list[Tensor]:
    if self.dim() == 0:
        return list(self.unsqueeze(0).nonzero().unbind(1))
    return list(self.nonzero().unbind(1))


@native_function(SOURCE, name="where")
def where_condition(condition: Tensor) -> list[Tensor]:
    return list(condition.nonzero_numpy())
