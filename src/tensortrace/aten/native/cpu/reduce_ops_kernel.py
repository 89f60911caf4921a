"""The CPU kernels of the reductions: sum, nansum, prod, var/std (and var_mean / std_mean),
and/or, argmax/argmin, cumsum.

Mirrors `aten/src/ATen/native/cpu/ReduceOpsKernel.cpp` and `SumKernel.cpp`. Each kernel is
REGISTER_DISPATCH'd to its stub and hands the reduction to NumPy through the loops of
native/cpu/reduce.py, over the iterator's operand arrays.

Accumulation types follow PyTorch's CPU kernels: float sums accumulate in the float type
(cascade_sum; NumPy's pairwise summation may differ from it in the last bits), var/std and
cumsum of floats accumulate in double (acc_type<float, false> is double), integers in int64.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.native.cpu.loops import cpu_kernel_vec
from tensortrace.aten.native.cpu.reduce import (
    accumulator,
    binary_kernel_reduce,
    binary_kernel_reduce_vec,
    reduced_axes,
)
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.normalization import renorm_scale_factor_stub
from tensortrace.aten.native.reduce_ops import (
    and_stub,
    argmax_stub,
    argmin_stub,
    cumsum_stub,
    or_stub,
    prod_stub,
    std_var_stub,
    sum_stub,
)
from tensortrace.aten.native.reduce_ops_nan import nansum_stub
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.aten.tensor_iterator_reduce import foreach_reduced_elt
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType, isComplexType, isFloatingType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/ReduceOpsKernel.cpp"

_add_reduce = np.add.reduce  # what np.sum calls, past its Python wrapper
_add = np.add  # Note [NumPy's names read once] in c10/tensor_impl.py
# bool's dtype, made once: `dtype == np.bool_` would make it from the type on every compare
_BOOL = np.dtype(np.bool_)
_multiply_reduce = np.multiply.reduce


@traced(
    "kernel",
    "at::native::(anonymous)::sum_kernel_impl",
    "aten/src/ATen/native/cpu/SumKernel.cpp",
    legacy="sum_kernel_impl",
)
def sum_kernel_impl(it: TensorIteratorBase) -> None:
    def loop(acc: np.ndarray, inp: np.ndarray, axes: tuple[int, ...]) -> None:
        dtype = acc.dtype
        if dtype == _BOOL:  # a bool sum stays bool: any nonzero term makes it true
            np.logical_or(acc, np.any(inp, axis=axes, keepdims=True), out=acc)
        else:
            # np.add.reduce is what np.sum calls, without its Python wrapper: the same bits
            _add(acc, _add_reduce(inp, axes, dtype, keepdims=True), out=acc)

    binary_kernel_reduce_vec(it, loop, 0)


@traced(
    "kernel",
    "at::native::(anonymous)::nansum_kernel_impl",
    "aten/src/ATen/native/cpu/SumKernel.cpp",
    legacy="nansum_kernel_impl",
)
def nansum_kernel_impl(it: TensorIteratorBase) -> None:
    """sum's cascade with each NaN read as 0."""

    def loop(acc: np.ndarray, inp: np.ndarray, axes: tuple[int, ...]) -> None:
        dtype = acc.dtype
        terms = np.where(np.isnan(inp), inp.dtype.type(0), inp)
        np.add(acc, _add_reduce(terms, axes, dtype, keepdims=True), out=acc)

    binary_kernel_reduce_vec(it, loop, 0)


@traced("kernel", "at::native::(anonymous)::prod_kernel_impl", SOURCE, legacy="prod_kernel_impl")
def prod_kernel_impl(it: TensorIteratorBase) -> None:
    def loop(acc: np.ndarray, inp: np.ndarray, axes: tuple[int, ...]) -> None:
        if acc.dtype == _BOOL:  # '*' in boolean context is &&
            np.logical_and(acc, np.all(inp, axis=axes, keepdims=True), out=acc)
        else:
            np.multiply(acc, _multiply_reduce(inp, axes, acc.dtype, keepdims=True), out=acc)

    binary_kernel_reduce_vec(it, loop, 1)


@traced(
    "kernel", "at::native::(anonymous)::std_var_kernel_impl", SOURCE, legacy="std_var_kernel_impl"
)
def std_var_kernel_impl(it: TensorIteratorBase, correction: float, take_sqrt: bool) -> None:
    """WelfordOps in double; the divisor is max(0, N - correction)."""

    def loop(acc: np.ndarray, inp: np.ndarray, axes: tuple[int, ...]) -> None:
        n = 1
        for axis in axes:
            n *= inp.shape[axis]
        values = inp.astype(np.float64)
        mean = np.mean(values, axis=axes, keepdims=True)
        m2 = np.sum((values - mean) ** 2, axis=axes, keepdims=True)
        var = m2 / max(0.0, n - correction)
        acc[...] = np.sqrt(var) if take_sqrt else var

    if it.noutputs() == 2:  # var_mean / std_mean: WelfordOps::project gives (var, mean)

        def loop2(out1: np.ndarray, out2: np.ndarray, inp: np.ndarray) -> None:
            axes = reduced_axes(out1)
            n = 1
            for axis in axes:
                n *= inp.shape[axis]
            values = inp.astype(np.float64)
            mean = np.mean(values, axis=axes, keepdims=True)
            var = np.sum((values - mean) ** 2, axis=axes, keepdims=True) / max(0.0, n - correction)
            accumulator(out1, axes)[...] = np.sqrt(var) if take_sqrt else var
            accumulator(out2, axes)[...] = mean

        if it.numel():
            with np.errstate(all="ignore"):
                foreach_reduced_elt(it, loop2)  # type: ignore[arg-type]
        return
    binary_kernel_reduce(it, loop)


def _and_or_kernel(it: TensorIteratorBase, is_and: bool) -> None:
    # Note [all, any : uint8 compatibility]: a uint8 result holds 0 or 1
    def loop(acc: np.ndarray, inp: np.ndarray, axes: tuple[int, ...]) -> None:
        if is_and:
            value = np.logical_and(acc, np.all(inp, axis=axes, keepdims=True))
        else:
            value = np.logical_or(acc, np.any(inp, axis=axes, keepdims=True))
        acc[...] = value

    binary_kernel_reduce_vec(it, loop, is_and)


@traced("kernel", "at::native::(anonymous)::and_kernel_impl", SOURCE, legacy="and_kernel_impl")
def and_kernel_impl(it: TensorIteratorBase) -> None:
    _and_or_kernel(it, True)


@traced("kernel", "at::native::(anonymous)::or_kernel_impl", SOURCE, legacy="or_kernel_impl")
def or_kernel_impl(it: TensorIteratorBase) -> None:
    _and_or_kernel(it, False)


def _arg_kernel(it: TensorIteratorBase, name: str, is_max: bool) -> None:
    TORCH_CHECK(it.input_dtype() != ScalarType.Bool, name, "(): does not support bool input")

    def loop(acc: np.ndarray, inp: np.ndarray, axes: tuple[int, ...]) -> None:
        # one reduced dim (argmax reduces a single dim, or the flattened tensor); size-1 axes
        # coalesce away. NaN wins and ties go to the lower index, as np.argmax/np.argmin do.
        long_axes = [a for a in axes if inp.shape[a] > 1] or list(axes[:1])
        axis = long_axes[0]
        # the ndarray methods np.argmax / np.argmin call, past their Python wrappers
        acc[...] = (inp.argmax if is_max else inp.argmin)(axis=axis, keepdims=True)

    binary_kernel_reduce(it, loop)


@traced(
    "kernel", "at::native::(anonymous)::argmax_kernel_impl", SOURCE, legacy="argmax_kernel_impl"
)
def argmax_kernel_impl(it: TensorIteratorBase) -> None:
    _arg_kernel(it, "argmax", True)


@traced(
    "kernel", "at::native::(anonymous)::argmin_kernel_impl", SOURCE, legacy="argmin_kernel_impl"
)
def argmin_kernel_impl(it: TensorIteratorBase) -> None:
    _arg_kernel(it, "argmin", False)


@traced("kernel", "at::native::(anonymous)::cumsum_cpu_kernel", SOURCE, legacy="cumsum_cpu_kernel")
def cumsum_cpu_kernel(result: Tensor, self: Tensor, dim: int) -> None:
    """cpu_cum_base_kernel: a running sum along dim, accumulated in acc_type (double, int64)."""
    out = result.numpy_view()
    inp = self.numpy_view()
    st = self.scalar_type()
    acc = (
        np.float64
        if isFloatingType(st)
        else np.complex128
        if isComplexType(st)
        else (np.bool_ if out.dtype == np.bool_ else np.int64)
    )
    with np.errstate(all="ignore"):
        if acc is np.bool_:
            out[...] = np.logical_or.accumulate(inp, axis=dim)
        else:
            out[...] = np.cumsum(inp, axis=dim, dtype=acc).astype(out.dtype, copy=False)


@traced("kernel", "at::native::(anonymous)::renorm_scale_factor_impl", SOURCE)
def renorm_scale_factor_impl(it: TensorIteratorBase, maxnorm: float) -> None:
    """maxnorm / (norm + 1e-7) where the norm exceeds maxnorm, else 1, in the norm's type."""
    dtype = it.common_dtype()
    TORCH_CHECK(
        isFloatingType(dtype) and dtype not in (ScalarType.Half, ScalarType.BFloat16),
        '"renorm_scale_factor_cpu" not implemented for \'',
        dtype,
        "'",
    )

    def loop(out: np.ndarray, norm: np.ndarray) -> None:
        t = norm.dtype.type
        maxnorm_s = t(maxnorm)
        with np.errstate(all="ignore"):
            out[...] = np.where(norm > maxnorm_s, maxnorm_s / (norm + t(1e-7)), t(1))

    cpu_kernel_vec(it, loop)


REGISTER_DISPATCH(sum_stub, sum_kernel_impl)
REGISTER_DISPATCH(renorm_scale_factor_stub, renorm_scale_factor_impl)
REGISTER_DISPATCH(nansum_stub, nansum_kernel_impl)
REGISTER_DISPATCH(prod_stub, prod_kernel_impl)
REGISTER_DISPATCH(std_var_stub, std_var_kernel_impl)
REGISTER_DISPATCH(and_stub, and_kernel_impl)
REGISTER_DISPATCH(or_stub, or_kernel_impl)
REGISTER_DISPATCH(argmax_stub, argmax_kernel_impl)
REGISTER_DISPATCH(argmin_stub, argmin_kernel_impl)
REGISTER_DISPATCH(cumsum_stub, cumsum_cpu_kernel)
