"""var and std (and var_mean / std_mean): the variance and standard deviation reductions, with
their correction.

Mirrors the std/var part of `aten/src/ATen/native/ReduceOps.cpp` (std_var_out, std_var_all_cpu,
var / std and their unbiased overloads), kept apart from reduce_ops.py. A reduction to one
element of a float or double tensor takes std_var_all_cpu's two passes (the mean, then the
squared deviations, in double); any other goes to std_var_stub (WelfordOps, in
native/cpu/reduce_ops_kernel.py). var_mean / std_mean (std_var_mean_out) always take the stub,
with a second output for the mean.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.reduce_ops import IntList, _ops, std_var_stub
from tensortrace.aten.native.reduce_ops_utils import (
    get_dtype_from_result,
    make_dim_mask,
    make_reduction_native,
    resize_reduction_result,
    review_reduce_result,
)
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIterator
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import (
    ScalarType,
    canCast,
    isComplexType,
    isFloatingType,
    toRealValueType,
)

SOURCE = "aten/src/ATen/native/ReduceOps.cpp"


def _correction_value(correction: Any) -> float:
    return 1.0 if correction is None else float(correction)


def std_var_all_cpu(result: Tensor, self: Tensor, correction: float, take_sqrt: bool) -> None:
    """A reduction to one element: the two-pass algorithm (mean first, then squared deviations)."""
    dtype = self.scalar_type()
    TORCH_CHECK(
        dtype in (ScalarType.Double, ScalarType.Float), "std_var_all: Unsupported dtype ", dtype
    )
    mean_value = float(self.mean().item())
    values = self.numpy_view().astype(np.float64)  # the C++ loop accumulates in double
    sum_dx2 = float(np.sum((values - mean_value) ** 2))
    with np.errstate(all="ignore"):
        var = np.float64(sum_dx2) / np.float64(max(0.0, self.numel() - correction))
        value = float(np.sqrt(var) if take_sqrt else var)
    result.fill_(value)


def std_var_out(
    fname: str,
    result: Tensor,
    self: Tensor,
    dim: IntList,
    correction_opt: Any,
    keepdim: bool,
    take_sqrt: bool,
) -> Tensor:
    TORCH_CHECK(
        isFloatingType(self.scalar_type()) or isComplexType(self.scalar_type()),
        "std and var only support floating point and complex dtypes",
    )
    if isComplexType(self.scalar_type()):
        # the variance of the real and of the imaginary parts, computed apart, then added
        dtype = toRealValueType(get_dtype_from_result(result, None))
        parts = []
        for part in (at.real(self), at.imag(self)):
            part_out = at.empty([0], dtype=dtype, device=self.device())
            parts.append(std_var_out(fname, part_out, part, dim, correction_opt, keepdim, False))
        at.add(parts[0], parts[1], out=result)
        if take_sqrt:
            at.sqrt(result, out=result)
        return result
    correction = _correction_value(correction_opt)
    dtype = get_dtype_from_result(result, None)
    iter_ = make_reduction_native(fname, result, self, dim, keepdim, dtype, dtype)
    TORCH_CHECK(
        canCast(self.scalar_type(), result.scalar_type()),
        "result type ",
        self.scalar_type(),
        " can't be cast to the desired output type ",
        result.scalar_type(),
    )
    # the reduction factor: how many input elements make each output element
    if result.numel() > 0 and self.numel() // result.numel() - correction <= 0:
        warnings.warn(
            f"{fname}(): degrees of freedom is <= 0. Correction should be strictly "
            "less than the reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=2,
        )
    if iter_.numel() == 0:
        result.fill_(float("nan"))  # a trivial reduction
    elif (
        iter_.common_dtype() not in (ScalarType.BFloat16, ScalarType.Half)
        and result.numel() == 1
        and not result.is_meta()  # ReduceOps.cpp takes this path for a CPU result only
    ):
        std_var_all_cpu(result, self, correction, take_sqrt)
    else:
        std_var_stub(iter_.device_type(), iter_, correction, take_sqrt)
    return result


def _value_type_empty(self: Tensor) -> Tensor:
    return at.empty([0], dtype=toRealValueType(self.scalar_type()), device=self.device())


@native_function(SOURCE, name="var")
def var(self: Tensor, dim: IntList = None, correction: Any = None, keepdim: bool = False) -> Tensor:
    return std_var_out("var", _value_type_empty(self), self, dim, correction, keepdim, False)


@native_function(SOURCE, name="var_out")
def var_out(self: Tensor, dim: IntList, correction: Any, keepdim: bool, out: Tensor) -> Tensor:
    return std_var_out("var", out, self, dim, correction, keepdim, False)


@native_function(SOURCE, name="std")
def std(self: Tensor, dim: IntList = None, correction: Any = None, keepdim: bool = False) -> Tensor:
    return std_var_out("std", _value_type_empty(self), self, dim, correction, keepdim, True)


@native_function(SOURCE, name="std_out")
def std_out(self: Tensor, dim: IntList, correction: Any, keepdim: bool, out: Tensor) -> Tensor:
    return std_var_out("std", out, self, dim, correction, keepdim, True)


def _unbiased_overload(name: str) -> Any:
    def unbiased(self: Tensor, unbiased: bool = True) -> Tensor:
        return _ops(f"{name}.correction").call(self, None, 1 if unbiased else 0, False)

    def dim_unbiased(
        self: Tensor, dim: IntList, unbiased: bool = True, keepdim: bool = False
    ) -> Tensor:
        return _ops(f"{name}.correction").call(self, dim, 1 if unbiased else 0, keepdim)

    return unbiased, dim_unbiased


var_unbiased, var_dim_unbiased = _unbiased_overload("var")
std_unbiased, std_dim_unbiased = _unbiased_overload("std")
for _name, _fn in (
    ("var_unbiased", var_unbiased),
    ("var_dim_unbiased", var_dim_unbiased),
    ("std_unbiased", std_unbiased),
    ("std_dim_unbiased", std_dim_unbiased),
):
    _fn.__name__ = _name
    native_function(
        SOURCE,
        name=_name,
        legacy=f"at::native::{_name.split('_')[0]} (unbiased)",
        symbol=f"at::native::{_name.split('_')[0]}",
    )(_fn)


def std_var_mean_out(
    fname: str,
    result1: Tensor,
    result2: Tensor,
    self: Tensor,
    dim: IntList,
    correction_opt: Any,
    keepdim: bool,
    take_sqrt: bool,
) -> tuple[Tensor, Tensor]:
    TORCH_CHECK(
        isFloatingType(self.scalar_type()) or isComplexType(self.scalar_type()),
        fname,
        " only support floating point and complex dtypes",
    )
    if isComplexType(self.scalar_type()):
        # the real and imaginary parts apart: var adds up, the mean is complex
        parts = [
            std_var_mean_out(
                fname,
                _value_type_empty(self),
                _value_type_empty(self),
                part,
                dim,
                correction_opt,
                keepdim,
                False,
            )
            for part in (at.real(self), at.imag(self))
        ]
        at.add(parts[0][0], parts[1][0], out=result1)
        if take_sqrt:
            at.sqrt(result1, out=result1)
        at.complex(parts[0][1], parts[1][1], out=result2)
        return result1, result2
    correction = _correction_value(correction_opt)
    dtype = get_dtype_from_result(result1, None)
    iter_ = make_reduction_two(result1, result2, self, dim, keepdim, dtype)
    if iter_.numel() == 0:
        result1.fill_(float("nan"))  # a trivial reduction
        result2.fill_(float("nan"))
    else:
        std_var_stub(iter_.device_type(), iter_, correction, take_sqrt)
    return result1, result2


def make_reduction_two(
    result1: Tensor, result2: Tensor, self: Tensor, dim: IntList, keepdim: bool, dtype: ScalarType
) -> TensorIterator:
    """at::native::make_reduction's two-output form: both results resized to the reduced
    shape and viewed with the input's rank, one iterator over (result1, result2, self)."""
    ndim = self.dim()
    mask = make_dim_mask(dim if dim is not None else [], ndim)
    resize_reduction_result(result1, self, mask, keepdim)
    viewed_result1 = review_reduce_result(result1, ndim, mask, keepdim)
    resize_reduction_result(result2, self, mask, keepdim)
    viewed_result2 = review_reduce_result(result2, ndim, mask, keepdim)
    src = self if self.scalar_type() == dtype else self.to(dtype)
    return TensorIterator.reduce_op(viewed_result1, src, viewed_result2)


def _std_var_mean(name: str, take_sqrt: bool) -> Any:
    def std_var_mean(
        self: Tensor, dim: IntList = None, correction: Any = None, keepdim: bool = False
    ) -> tuple[Tensor, Tensor]:
        result1 = _value_type_empty(self)
        result2 = at.empty([0], dtype=self.scalar_type(), device=self.device())
        return std_var_mean_out(name, result1, result2, self, dim, correction, keepdim, take_sqrt)

    def unbiased(self: Tensor, unbiased: bool = True) -> tuple[Tensor, Tensor]:
        return _ops(f"{name}.correction").call(self, None, 1 if unbiased else 0, False)

    def dim_unbiased(
        self: Tensor, dim: IntList, unbiased: bool = True, keepdim: bool = False
    ) -> tuple[Tensor, Tensor]:
        return _ops(f"{name}.correction").call(self, dim, 1 if unbiased else 0, keepdim)

    return std_var_mean, unbiased, dim_unbiased


var_mean, var_mean_unbiased, var_mean_dim_unbiased = _std_var_mean("var_mean", False)
std_mean, std_mean_unbiased, std_mean_dim_unbiased = _std_var_mean("std_mean", True)
for _name, _fn in (
    ("var_mean", var_mean),
    ("std_mean", std_mean),
    ("var_mean_unbiased", var_mean_unbiased),
    ("var_mean_dim_unbiased", var_mean_dim_unbiased),
    ("std_mean_unbiased", std_mean_unbiased),
    ("std_mean_dim_unbiased", std_mean_dim_unbiased),
):
    _fn.__name__ = _name
    _base = "_".join(_name.split("_")[:2])
    native_function(SOURCE, name=_name, symbol=f"at::native::{_base}")(_fn)
