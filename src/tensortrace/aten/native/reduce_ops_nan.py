"""nansum and nanmean: the sum and mean that skip NaN.

Mirrors `nansum` / `nansum_out` and `nanmean` / `nanmean_out` of
`aten/src/ATen/native/ReduceOps.cpp`. nansum is an unstructured reduction: integer (and bool)
inputs have no NaN and go straight to sum, floating ones run nansum_stub (its kernel, in
native/cpu/reduce_ops_kernel.py, is SumKernel.cpp's nansum_kernel_impl). nanmean is a
composite: nansum divided by the count of the elements that are not NaN, so a slice of NaN
only gives 0 / 0 = NaN.
"""

from __future__ import annotations

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.reduce_ops import IntList
from tensortrace.aten.native.reduce_ops_utils import (
    get_dtype_from_result,
    get_dtype_from_self,
    make_dim_mask,
    make_reduction_native,
    shape_from_dim_mask,
)
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.tensor_compare_extra import isnan
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, isComplexType, isIntegralType

SOURCE = "aten/src/ATen/native/ReduceOps.cpp"

nansum_stub = DECLARE_DISPATCH("nansum_stub", "aten/src/ATen/native/ReduceOps.h")


def create_reduction_result(self: Tensor, dim: IntList, keepdim: bool, dtype: ScalarType) -> Tensor:
    mask = make_dim_mask(dim if dim is not None else [], self.dim())
    shape = shape_from_dim_mask(self, mask, keepdim)
    return at.empty(list(shape), dtype=dtype, device=self.device())


@native_function(SOURCE, name="nansum_out")
def nansum_out(
    self: Tensor, dim: IntList, keepdim: bool, dtype: ScalarType | None, out: Tensor
) -> Tensor:
    if self.device().is_cpu():
        TORCH_CHECK(
            not isComplexType(self.scalar_type()), "nansum on CPU does not support complex inputs"
        )
    # integral types have no NaN: this is sum
    if isIntegralType(self.scalar_type(), True):
        return at.sum(self, dim, keepdim, dtype=dtype, out=out)
    dtype = get_dtype_from_result(out, dtype)
    iter_ = make_reduction_native("nansum", out, self, dim, keepdim, dtype, dtype)
    if iter_.numel() == 0:
        out.zero_()
    else:
        nansum_stub(iter_.device_type(), iter_)
    return out


@native_function(SOURCE, name="nansum")
def nansum(
    self: Tensor, dim: IntList = None, keepdim: bool = False, dtype: ScalarType | None = None
) -> Tensor:
    dtype = get_dtype_from_self(self, dtype, True)
    result = create_reduction_result(self, dim, keepdim, dtype)
    return nansum_out(self, dim, keepdim, dtype, result)


def _check_nanmean_dtype(self: Tensor) -> None:
    TORCH_CHECK(
        self.is_floating_point() or self.is_complex(),
        "nanmean(): expected input to have floating point or complex dtype but got ",
        self.scalar_type(),
    )


@native_function(SOURCE, name="nanmean")
def nanmean(
    self: Tensor, dim: IntList = None, keepdim: bool = False, dtype: ScalarType | None = None
) -> Tensor:
    _check_nanmean_dtype(self)
    factor = isnan(self).logical_not_().sum(dim, keepdim)  # at::native::isnan: no dispatch
    return at.nansum(self, dim, keepdim, dtype=dtype).div(factor)


@native_function(SOURCE, name="nanmean_out")
def nanmean_out(
    self: Tensor, dim: IntList, keepdim: bool, dtype: ScalarType | None, out: Tensor
) -> Tensor:
    _check_nanmean_dtype(self)
    factor = isnan(self).logical_not_().sum(dim, keepdim)
    at.nansum(self, dim, keepdim, dtype=dtype, out=out).div_(factor)
    return out
