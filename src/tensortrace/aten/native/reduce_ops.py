"""Reductions: sum, mean, prod, trace, argmax/argmin, all/any, and the scan cumsum.

Mirrors `aten/src/ATen/native/ReduceOps.cpp` (and the stubs of `ReduceOps.h`). The structured
ones (sum.IntList_out, mean.out, prod.int_out, argmax.out, all.out, cumsum.out ...) have a meta
half that declares the reduced output (resize_reduction) and an impl half that views that output
with stride 0 along the reduced dims and runs a TensorIterator reduction over it
(Note [A reduction's output has stride 0 along the reduced dims]); the kernel behind each stub
is in native/cpu/reduce_ops_kernel.py. var and std are in reduce_ops_std_var.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.fp_errors import IGNORE_ALL, NUMPY_ERROR_STATE
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH
from tensortrace.aten.native.reduce_ops_utils import (
    get_dtype_from_self,
    get_reduction_shape,
    make_reduction,
    make_reduction_from_out_ty,
    resize_reduction,
    zero_numel_check_dims,
)
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.tensor_body import Tensor, null_deref
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.device import DeviceType
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_INDEX, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import (
    ScalarType,
    isComplexType,
    isFloatingType,
    isIntegralType,
)
from tensortrace.trace import recorder

SOURCE = "aten/src/ATen/native/ReduceOps.cpp"
STUBS = "aten/src/ATen/native/ReduceOps.h"
IntList = Sequence[int] | None

sum_stub = DECLARE_DISPATCH("sum_stub", STUBS)
prod_stub = DECLARE_DISPATCH("prod_stub", STUBS)
std_var_stub = DECLARE_DISPATCH("std_var_stub", STUBS)
and_stub = DECLARE_DISPATCH("and_stub", STUBS)
or_stub = DECLARE_DISPATCH("or_stub", STUBS)
argmax_stub = DECLARE_DISPATCH("argmax_stub", STUBS)
argmin_stub = DECLARE_DISPATCH("argmin_stub", STUBS)
cumsum_stub = DECLARE_DISPATCH("cumsum_stub", STUBS)


# at::_ops itself, read once: the at module defines __getattr__, so CPython 3.11 specializes no
# read of `at._ops` (Note [NumPy's names read once] in c10/tensor_impl.py)
_OPERATORS = at._ops


def _ops(full_name: str) -> Any:
    """at::_ops::<op>: the operator handle, whose call() goes through the dispatcher."""
    return at._ops[full_name]


def infer_dtype_from_optional(self: Tensor, dtype: ScalarType | None, result: Tensor) -> ScalarType:
    """An explicit dtype wins; else an out= tensor's dtype; else self's (ints -> int64)."""
    if result.impl_.target_ is not None:  # result.defined(): Note [Direct reads on hot paths]
        return dtype if dtype is not None else result.scalar_type()
    return get_dtype_from_self(self, dtype, True)


# ---- sum -----------------------------------------------------------------------------------------
@meta_function("sum.dim_IntList", SOURCE)
def meta_sum(
    it: TensorIteratorBase, self: Tensor, dim: IntList, keepdim: bool, dtype: ScalarType | None
) -> None:
    out_dtype = infer_dtype_from_optional(self, dtype, it.maybe_get_output())
    resize_reduction(it, self, dim, keepdim, out_dtype)


@impl_function("sum_out", SOURCE, legacy="at::native::sum_out")
def sum_out(
    it: TensorIteratorBase,
    self: Tensor,
    dim: IntList,
    keepdim: bool,
    dtype: ScalarType | None,
    result: Tensor,
) -> None:
    # result.scalar_type(), iter_.numel() and iter_.device_type() read directly: every sum runs
    # this (Note [Direct reads on hot paths])
    out_dtype = (result.impl_.target_ or null_deref()).data_type_.scalar_type
    iter_ = make_reduction_from_out_ty(self, result, dim, keepdim, out_dtype)
    if math.prod(iter_.shape_) == 0:
        result.zero_()
    else:
        sum_stub(iter_.common_device_.type_, iter_)


@native_function(SOURCE, name="sum")
def sum_(self: Tensor, dtype: ScalarType | None = None) -> Tensor:
    """sum(self, dtype): the dim overload with dim=[] (every dim), through the dispatcher.

    torch.profiler shows one aten::sum here: its event list drops a child that has its
    parent's name and is its only child (EventList._remove_dup_nodes). The trace keeps both.
    """
    return _OPERATORS["sum.dim_IntList"].call(self, [], False, dtype)  # _ops(...), read directly


# ---- mean ----------------------------------------------------------------------------------------
@meta_function("mean.dim", SOURCE)
def meta_mean(
    it: TensorIteratorBase, self: Tensor, dim: IntList, keepdim: bool, dtype: ScalarType | None
) -> None:
    in_dtype = get_dtype_from_self(self, dtype, True)
    if not isFloatingType(in_dtype) and not isComplexType(in_dtype):
        what, shown = ("Optional", dtype) if dtype is not None else ("Input", self.scalar_type())
        TORCH_CHECK(
            False,
            "mean(): could not infer output dtype. ",
            what,
            " dtype must be either a floating point or complex dtype. Got: ",
            shown,
        )
    out_dtype = infer_dtype_from_optional(self, dtype, it.maybe_get_output())
    resize_reduction(it, self, dim, keepdim, out_dtype)


@impl_function("mean_out", SOURCE, legacy="at::native::mean_out")
def mean_out(
    it: TensorIteratorBase,
    self: Tensor,
    dim: IntList,
    keepdim: bool,
    dtype: ScalarType | None,
    result: Tensor,
) -> None:
    """On CPU, mean is sum then div_ (PyTorch's TensorIterator mean kernel is slower)."""
    out_dtype = result.scalar_type()
    if dim is None or len(dim) == 0 or self.dim() == 0:
        dim_prod = self.numel()
    else:
        dim_prod = 1
        for d in dim:
            dim_prod *= self.size(maybe_wrap_dim(d, self.dim()))
    # half and bfloat16 sum in float for accuracy, then come back
    is_half = out_dtype in (ScalarType.Half, ScalarType.BFloat16)
    acc = result.to(ScalarType.Float) if is_half else result
    _ops("sum.IntList_out").call(
        self, dim, keepdim, ScalarType.Float if is_half else out_dtype, acc
    )
    if not _divide_idle(acc, dim_prod):  # Note [mean's division while no trace records]
        acc.div_(dim_prod)
    if is_half:
        result.copy_(acc)


# Note [mean's division while no trace records]
# acc.div_(dim_prod) is a whole operator: dim_prod becomes a wrapped int64 scalar tensor, the
# binary iterator casts it to acc's dtype (aten::to, an empty_strided and a copy_), and
# div_true_kernel divides: ~320 Python calls, half of mean's fixed cost, around one NumPy
# division. While no trace records, a contiguous CPU acc (which the iterator could not refuse)
# is divided in place by the same NumPy calls: the int64 scalar converted as copy_kernel
# converts it, then np.true_divide as div_true_kernel calls it (acc is float, double or
# complex: its own opmath type). The two scalar temporaries are not made, so the allocator's
# cumulative counts (memory_stats' allocation.all.allocated) grow by two fewer than while
# tracing; nothing else differs, the values bit for bit included.
def _divide_idle(acc: Tensor, dim_prod: int) -> bool:
    """acc /= dim_prod in place, if no trace records and the div_ path could not differ."""
    impl = acc.unsafeGetTensorImpl()
    if recorder.current is not None or not (
        impl.is_contiguous_ and impl.device_opt_.type_ == DeviceType.CPU
    ):
        return False
    values = impl.numpy_view()
    if values.dtype.kind not in "fc":  # an integer out=: div_ raises that it cannot cast
        return False
    divisor = np.empty((), values.dtype)
    np.copyto(divisor, np.int64(dim_prod), casting="unsafe")  # wrapped int64, .to(acc's dtype)
    # a mean over no element is 0 / 0: NaN, as in C++, with no warning
    token = NUMPY_ERROR_STATE.set(IGNORE_ALL)  # Note [The error state set directly]
    try:
        np.true_divide(values, divisor, out=values, casting="unsafe")
    finally:
        NUMPY_ERROR_STATE.reset(token)
    return True


@native_function(SOURCE, name="mean")
def mean(self: Tensor, dtype: ScalarType | None = None) -> Tensor:
    return _ops("mean.dim").call(self, [], False, dtype)


# ---- prod ----------------------------------------------------------------------------------------
def impl_func_prod(self: Tensor, dims: IntList, keepdim: bool, result: Tensor) -> None:
    iter_ = make_reduction_from_out_ty(self, result, dims, keepdim, result.scalar_type())
    if iter_.numel() == 0:
        result.fill_(1)
    else:
        prod_stub(iter_.device_type(), iter_)


@meta_function("prod.dim_int", SOURCE)
def meta_prod(
    it: TensorIteratorBase, self: Tensor, dim: int, keepdim: bool, dtype: ScalarType | None
) -> None:
    out_dtype = infer_dtype_from_optional(self, dtype, it.maybe_get_output())
    resize_reduction(it, self, [dim], keepdim, out_dtype)


@impl_function("prod_out", SOURCE, legacy="at::native::prod_out")
def prod_out(
    it: TensorIteratorBase,
    self: Tensor,
    dim: int,
    keepdim: bool,
    dtype: ScalarType | None,
    result: Tensor,
) -> None:
    impl_func_prod(self, [dim], keepdim, result)


@native_function(SOURCE, name="prod")
def prod(self: Tensor, dtype: ScalarType | None = None) -> Tensor:
    out_dtype = get_dtype_from_self(self, dtype, True)
    shape = get_reduction_shape(self, [], False)
    result = at.empty(shape, dtype=out_dtype, device=self.device())
    impl_func_prod(self, [], False, result)
    return result


# ---- trace ---------------------------------------------------------------------------------------
@native_function(SOURCE, name="trace_cpu")
def trace_cpu(self: Tensor) -> Tensor:
    """The sum of a matrix's diagonal, one loop over it (not diag + sum: pytorch#47305).

    As in ATen the result is allocated before the dtype switch and the dim check, so a bad
    input frees it again on the way out; integers (and bool) sum into int64.
    """
    dtype = get_dtype_from_self(self, None, True)
    result = at.empty([], dtype=dtype, device=self.device())
    src = self.scalar_type()
    # AT_DISPATCH_V2(ALL_TYPES_AND_COMPLEX, kHalf, kBFloat16): every dtype but bool
    TORCH_CHECK_NOT_IMPLEMENTED(src != ScalarType.Bool, '"trace" not implemented for \'', src, "'")
    TORCH_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim())
    diagonal = np.diagonal(self.numpy_view())
    # at::acc_type<scalar_t, /*is_cuda=*/false>: float for half and bfloat16, double for float,
    # complex<double> for complex, int64 for integers. The loop adds in order, as
    # np.add.accumulate does (np.sum would add pairwise).
    acc = (
        np.complex128
        if isComplexType(src)
        else np.float32
        if src in (ScalarType.Half, ScalarType.BFloat16)
        else np.float64
        if isFloatingType(src)
        else np.int64
    )
    total = np.add.accumulate(diagonal, dtype=acc)[-1] if diagonal.size else acc(0)
    result.numpy_view()[()] = total
    return result


# ---- cumsum --------------------------------------------------------------------------------------
@meta_function("cumsum", SOURCE)
def meta_cumsum(it: TensorIteratorBase, self: Tensor, dim: int, dtype: ScalarType | None) -> None:
    maybe_wrap_dim(dim, self.dim())
    result = it.maybe_get_output()
    if result.defined():
        out_dtype = dtype if dtype is not None else result.scalar_type()
    else:
        is_integral = isIntegralType(self.scalar_type(), True)
        out_dtype = (
            dtype if dtype is not None else (ScalarType.Long if is_integral else self.scalar_type())
        )
    from tensortrace.c10.tensor_options import TensorOptions

    it.set_output_raw_strided(0, self.sizes(), (), TensorOptions(out_dtype, self.device()))


@impl_function("cumsum_out", SOURCE, legacy="at::native::cumsum_out")
def cumsum_out(
    it: TensorIteratorBase, self: Tensor, dim: int, dtype: ScalarType | None, result: Tensor
) -> None:
    if self.dim() == 0:
        result.fill_(self)
    elif self.numel() == 0:
        result.zero_()
    else:
        dim = maybe_wrap_dim(dim, self.dim())
        cumsum_stub(self.device().type_, result, self.to(result.scalar_type()), dim)


# ---- argmax / argmin -----------------------------------------------------------------------------
def check_argmax_argmin(name: str, self: Tensor, dim: int | None) -> None:
    TORCH_CHECK(not isComplexType(self.scalar_type()), name, ": does not support complex input")
    if dim is not None:
        zero_numel_check_dims(self, maybe_wrap_dim(dim, self.dim()), name)
    else:
        TORCH_CHECK_INDEX(
            self.numel() != 0,
            name,
            ": Expected reduction dim to be specified for input.numel() == 0.",
        )


@meta_function("argmax", SOURCE)
def meta_argmax(it: TensorIteratorBase, self: Tensor, dim: int | None, keepdim: bool) -> None:
    check_argmax_argmin("argmax()", self, dim)
    resize_reduction(it, self, [dim] if dim is not None else [], keepdim, ScalarType.Long)


@meta_function("argmin", SOURCE)
def meta_argmin(it: TensorIteratorBase, self: Tensor, dim: int | None, keepdim: bool) -> None:
    check_argmax_argmin("argmin()", self, dim)
    resize_reduction(it, self, [dim] if dim is not None else [], keepdim, ScalarType.Long)


# Note [argmax of a whole contiguous tensor while no trace records]
# argmax(self) with no dim flattens self (reshape: a view), views the result with self's rank
# (as_strided), builds a reduction iterator and dispatches argmax_stub, whose kernel makes one
# NumPy call over the flat input: ~120 Python calls around it. None of those views or the
# iterator outlives the call and none allocates, so while no trace records, a contiguous CPU
# input (whose flat view is itself) goes straight to that NumPy call, with the same bits. The
# cases that would raise (a bool input), copy (a non-contiguous input) or cast go the full way.
def _flat_arg_reduce_idle(self: Tensor, result: Tensor, stub: Any) -> bool:
    """argmax/argmin of all of self into result, if no trace records and nothing can differ."""
    if recorder.current is not None:
        return False
    impl = self.unsafeGetTensorImpl()
    if not (
        impl.is_contiguous_
        and impl.device_opt_.type_ == DeviceType.CPU
        and impl.data_type_.scalar_type != ScalarType.Bool
        and impl.data_type_.numpy is not None  # else the kernel's own error
        and result.scalar_type() == ScalarType.Long
    ):
        return False
    values = impl.numpy_view().reshape(-1)  # the flat view reshape([-1]) makes
    index = values.argmax() if stub is argmax_stub else values.argmin()
    result.unsafeGetTensorImpl().numpy_view()[...] = index
    return True


def argmax_argmin_impl(
    self: Tensor, dim: int | None, keepdim: bool, result: Tensor, stub: Any
) -> None:
    if dim is None and _flat_arg_reduce_idle(self, result, stub):
        return  # Note [argmax of a whole contiguous tensor while no trace records]
    if dim is not None:
        dim_ = maybe_wrap_dim(dim, self.dim())
        if self.dim() > 0 and self.size(dim_) == 1 or self.dim() == 0:
            result.fill_(0)
            return
        dims: list[int] = [dim_]
        inp = self
    else:
        inp = self.reshape([-1])  # a flat view: the index is into the flattened tensor
        keepdim = False
        dims = []
    iter_ = make_reduction(inp, result, dims, keepdim, self.scalar_type())
    if iter_.numel() != 0:
        stub(iter_.device_type(), iter_)


@impl_function("argmax_out", SOURCE, legacy="at::native::argmax_out")
def argmax_out(
    it: TensorIteratorBase, self: Tensor, dim: int | None, keepdim: bool, result: Tensor
) -> None:
    argmax_argmin_impl(self, dim, keepdim, result, argmax_stub)


@impl_function("argmin_out", SOURCE, legacy="at::native::argmin_out")
def argmin_out(
    it: TensorIteratorBase, self: Tensor, dim: int | None, keepdim: bool, result: Tensor
) -> None:
    argmax_argmin_impl(self, dim, keepdim, result, argmin_stub)


# ---- all / any -----------------------------------------------------------------------------------
# Note [all, any : uint8 compatibility]: for NumPy compatibility all/any return bool, except
# that a uint8 input gives a uint8 result (0 or 1), as it did before bool tensors existed.
def allany_meta(
    it: TensorIteratorBase, name: str, self: Tensor, dims: IntList, keepdim: bool
) -> None:
    result = it.maybe_get_output()
    if result.defined():
        TORCH_CHECK(
            result.scalar_type() in (ScalarType.Bool, ScalarType.Byte),
            name,
            " only supports bool tensor for result, got: ",
            result.scalar_type(),
        )
        out_dtype = result.scalar_type()
    else:
        out_dtype = ScalarType.Byte if self.scalar_type() == ScalarType.Byte else ScalarType.Bool
    resize_reduction(it, self, dims, keepdim, out_dtype, allow_empty_dims=True)


def allany_impl(
    identity: int, self: Tensor, result: Tensor, dims: IntList, keepdim: bool, stub: Any
) -> None:
    if self.numel() == 0:
        result.fill_(identity)
    elif self.numel() == 1:
        result.copy_(self.view_as(result).to(ScalarType.Bool))
    else:
        # CPU kernels take bool input: make_reduction_from_out_ty converts self to it
        iter_ = make_reduction_from_out_ty(self, result, dims, keepdim, result.scalar_type())
        stub(iter_.device_type(), iter_)


def _register_allany(name: str, identity: int, stub: Any) -> None:
    def meta_dim(it: TensorIteratorBase, self: Tensor, dim: int, keepdim: bool) -> None:
        allany_meta(it, name, self, [dim], keepdim)

    def meta_dims(it: TensorIteratorBase, self: Tensor, dim: IntList, keepdim: bool) -> None:
        allany_meta(it, name, self, dim, keepdim)

    def meta_all(it: TensorIteratorBase, self: Tensor) -> None:
        allany_meta(it, name, self, None, False)  # `{}` there is an empty optional: all dims

    def impl_dim(
        it: TensorIteratorBase, self: Tensor, dim: int, keepdim: bool, result: Tensor
    ) -> None:
        allany_impl(identity, self, result, [dim], keepdim, stub)

    def impl_dims(
        it: TensorIteratorBase, self: Tensor, dim: IntList, keepdim: bool, result: Tensor
    ) -> None:
        allany_impl(identity, self, result, dim, keepdim, stub)

    def impl_all(it: TensorIteratorBase, self: Tensor, result: Tensor) -> None:
        allany_impl(identity, self, result, None, False, stub)

    meta_function(f"{name}.dim", SOURCE)(meta_dim)
    meta_function(f"{name}.dims", SOURCE)(meta_dims)
    meta_function(name, SOURCE)(meta_all)
    impl_function(f"{name}_out", SOURCE, legacy=f"at::native::{name}_out")(impl_dim)
    impl_function(f"{name}_dims_out", SOURCE, legacy=f"at::native::{name}_out")(impl_dims)
    impl_function(f"{name}_all_out", SOURCE, legacy=f"at::native::{name}_out")(impl_all)


_register_allany("all", 1, and_stub)
_register_allany("any", 0, or_stub)
