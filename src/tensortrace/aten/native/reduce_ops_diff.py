"""diff and dist: the n-th forward difference along a dim, and the p-norm of a difference.

Mirrors `diff` / `diff_out` (with diff_check, prepend_append_on_dim, diff_helper and
diff_out_helper) and `dist` of `aten/src/ATen/native/ReduceOps.cpp`. diff is a composite:
prepend / append are concatenated on, then each order narrows the tensor twice along dim and
subtracts (logical_xor for bool). dist is at::norm(self - other, p), whose CPU implementation
is linalg_vector_norm (tensortrace declares no aten::norm, see distance.py).
"""

from __future__ import annotations

from typing import Any

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.resize import resize_output
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, isComplexType, isFloatingType

SOURCE = "aten/src/ATen/native/ReduceOps.cpp"


def diff_check_compatible_shape(self: Tensor, other: Tensor | None, dim: int) -> None:
    """prepend / append must match the input's shape except along dim."""
    if other is None:
        return
    wrapped_dim = maybe_wrap_dim(dim, self.dim(), False)
    TORCH_CHECK(
        other.dim() == self.dim(),
        "diff expects prepend or append to be the same dimension as input",
    )
    for i in range(other.dim()):
        if i == wrapped_dim:
            continue
        TORCH_CHECK(
            other.size(i) == self.size(i),
            "diff expects the shape of tensor to prepend or append to match that of input "
            "except along the differencing dimension; input.size(",
            i,
            ") = ",
            self.size(i),
            ", but got tensor.size(",
            i,
            ") = ",
            other.size(i),
        )


def diff_check(
    self: Tensor, n: int, dim: int, prepend: Tensor | None, append: Tensor | None
) -> None:
    TORCH_CHECK(self.dim() >= 1, "diff expects input to be at least one-dimensional")
    TORCH_CHECK(n >= 0, "order must be non-negative but got ", n)
    diff_check_compatible_shape(self, prepend, dim)
    diff_check_compatible_shape(self, append, dim)


def prepend_append_on_dim(
    self: Tensor, prepend: Tensor | None, append: Tensor | None, dim: int
) -> Tensor:
    if prepend is None:
        return at.cat([self, append], dim)
    if append is None:
        return at.cat([prepend, self], dim)
    return at.cat([prepend, self, append], dim)


def diff_helper(self: Tensor, n: int, dim: int) -> Tensor:
    dim = maybe_wrap_dim(dim, self.dim())  # sym_size(dim)'s check
    if n == 0:
        result = at.zeros_like(self)
        result.copy_(self)
        return result
    out_len = self.size(dim) - 1
    result = self
    is_bool = self.scalar_type() == ScalarType.Bool
    n = min(n, self.size(dim))
    for _ in range(n):
        upper, lower = result.narrow(dim, 1, out_len), result.narrow(dim, 0, out_len)
        result = at.logical_xor(upper, lower) if is_bool else upper.sub(lower)
        out_len -= 1
    return result


def diff_out_helper(self: Tensor, n: int, dim: int, result: Tensor) -> Tensor:
    if n == 0:
        resize_output(result, list(self.sizes()))
        TORCH_CHECK(
            result.scalar_type() == self.scalar_type(),
            "Expected out tensor to have dtype ",
            self.scalar_type(),
            ", but got ",
            result.scalar_type(),
            " instead",
        )
        return result.copy_(self)
    dim = maybe_wrap_dim(dim, self.dim())
    n = min(n, self.size(dim))
    out_len = self.size(dim) - n
    prev_result = diff_helper(self, n - 1, dim) if n > 1 else self
    upper, lower = prev_result.narrow(dim, 1, out_len), prev_result.narrow(dim, 0, out_len)
    if self.scalar_type() == ScalarType.Bool:
        return at.logical_xor(upper, lower, out=result)
    return at.sub(upper, lower, out=result)


@native_function(SOURCE, name="diff")
def diff(
    self: Tensor,
    n: int = 1,
    dim: int = -1,
    prepend: Tensor | None = None,
    append: Tensor | None = None,
) -> Tensor:
    diff_check(self, n, dim, prepend, append)
    if (prepend is None and append is None) or n == 0:
        return diff_helper(self, n, dim)
    return diff_helper(prepend_append_on_dim(self, prepend, append, dim), n, dim)


@native_function(SOURCE, name="diff_out")
def diff_out(
    self: Tensor, n: int, dim: int, prepend: Tensor | None, append: Tensor | None, out: Tensor
) -> Tensor:
    diff_check(self, n, dim, prepend, append)
    if (prepend is None and append is None) or n == 0:
        return diff_out_helper(self, n, dim, out)
    return diff_out_helper(prepend_append_on_dim(self, prepend, append, dim), n, dim, out)


@native_function(SOURCE, name="dist")
def dist(self: Tensor, other: Tensor, p: Any = 2) -> Tensor:
    difference = self.sub(other)
    # at::norm's own check (linalg_vector_norm words it differently)
    TORCH_CHECK(
        isFloatingType(difference.scalar_type()) or isComplexType(difference.scalar_type()),
        "norm(): input dtype should be either floating point or complex. Got ",
        difference.scalar_type(),
        " instead.",
    )
    return at.linalg_vector_norm(difference, p)
