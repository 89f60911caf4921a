"""cumprod, logcumsumexp, cummax and cummin: the running reductions of ReduceOps.cpp.

Mirrors `aten/src/ATen/native/ReduceOps.cpp` (TORCH_META_FUNC(cumprod) / cumprod_out,
logcumsumexp, cummax_helper_cpu / cummin_helper_cpu) and the loops of
`cpu/ReduceOpsKernel.cpp` (cpu_cum_base_kernel): along `dim`, each output element combines the
input element with the running value, accumulated in acc_type (double for float, int64 for
integers) and stored in the output's dtype. cummax / cummin keep the index of the last
element that reached the running extreme (ties move the index forward), and NaN, once seen,
stays the running value.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.cuda.empty_tensor import empty_structured_output
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType, isFloatingType, isIntegralType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/ReduceOps.cpp"
KERNEL = "aten/src/ATen/native/cpu/ReduceOpsKernel.cpp"


def _nd(a: np.ndarray) -> np.ndarray:
    return a.reshape(1) if a.ndim == 0 else a


# ---- cumprod -------------------------------------------------------------------------------------
@traced(
    "kernel", "at::native::(anonymous)::cumprod_cpu_kernel", KERNEL, legacy="cumprod_cpu_kernel"
)
def cumprod_cpu_kernel(result: Tensor, self: Tensor, dim: int) -> None:
    src = _nd(self.numpy_view())
    acc = (
        np.float64
        if src.dtype.kind == "f" or src.dtype.name == "bfloat16"
        else np.complex128
        if src.dtype.kind == "c"
        else np.int64
    )
    _nd(result.numpy_view())[...] = np.cumprod(src.astype(acc), axis=dim)


def _cumprod_into(result: Tensor, self: Tensor, dim: int) -> Tensor:
    dim = maybe_wrap_dim(dim, self.dim())
    if self.numel() and not result.is_meta():  # Note [A meta tensor's kernel is no call]
        cumprod_cpu_kernel(result, self.to(result.scalar_type()), dim)
    return result


@native_function(SOURCE, name="cumprod")
def cumprod(self: Tensor, dim: int, dtype: ScalarType | None = None) -> Tensor:
    """TORCH_META_FUNC(cumprod): integers (and bool) become int64 unless a dtype is given."""
    maybe_wrap_dim(dim, self.dim())
    if dtype is None:
        dtype = ScalarType.Long if isIntegralType(self.scalar_type(), True) else self.scalar_type()
    result = empty_structured_output(
        list(self.sizes()), dtype, self.device()
    )  # structured: no dispatch
    return _cumprod_into(result, self, dim)


@native_function(SOURCE, name="cumprod_")
def cumprod_(self: Tensor, dim: int, dtype: ScalarType | None = None) -> Tensor:
    maybe_wrap_dim(dim, self.dim())
    return _cumprod_into(self, self.clone() if dtype is None else self.to(dtype), dim)


# ---- logcumsumexp --------------------------------------------------------------------------------
def _log_add_exp_helper(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """log(exp(x) + exp(y)) without overflow; two equal infinities stay themselves."""
    lo, hi = np.minimum(x, y), np.maximum(x, y)
    with np.errstate(invalid="ignore", over="ignore"):
        out = np.log1p(np.exp(lo - hi)) + hi
    same_inf = (lo == hi) & ~np.isfinite(lo)
    return np.where(same_inf, x, out)


@traced(
    "kernel",
    "at::native::(anonymous)::logcumsumexp_cpu_kernel",
    KERNEL,
    legacy="logcumsumexp_cpu_kernel",
)
def logcumsumexp_cpu_kernel(result: Tensor, self: Tensor, dim: int) -> None:
    src = np.moveaxis(_nd(self.numpy_view()).astype(np.float64), dim, 0)
    out = np.moveaxis(_nd(result.numpy_view()), dim, 0)
    running = np.full(src.shape[1:], -np.inf)
    for i in range(src.shape[0]):
        running = _log_add_exp_helper(src[i], running)
        out[i] = running


@native_function(SOURCE, name="logcumsumexp")
def logcumsumexp(self: Tensor, dim: int) -> Tensor:
    wrapped = maybe_wrap_dim(dim, self.dim())
    TORCH_CHECK_NOT_IMPLEMENTED(
        isFloatingType(self.scalar_type()),
        '"logcumsumexp_out_cpu" not implemented for \'',
        self.scalar_type(),
        "'",
    )
    result = at.empty(list(self.sizes()), dtype=self.scalar_type(), device=self.device())
    if self.numel() and not result.is_meta():  # Note [A meta tensor's kernel is no call]
        logcumsumexp_cpu_kernel(result, self, wrapped)
    return result


# ---- cummax / cummin -----------------------------------------------------------------------------
@traced("kernel", "at::native::cummax_cummin_helper", SOURCE, legacy="cummax_cummin_helper")
def cummax_cummin_helper(
    values: Tensor, indices: Tensor, self: Tensor, dim: int, is_max: bool
) -> None:
    src = np.moveaxis(_nd(self.numpy_view()), dim, 0)
    vals = np.moveaxis(_nd(values.numpy_view()), dim, 0)
    idxs = np.moveaxis(_nd(indices.numpy_view()), dim, 0)
    best = src[0].copy()
    best_idx = np.zeros(src.shape[1:], dtype=np.int64)
    is_float = src.dtype.kind == "f"
    for i in range(src.shape[0]):
        x = src[i]
        # take x when it is NaN, or ties or beats the running value (and that is not NaN)
        better = (x >= best) if is_max else (x <= best)
        if is_float:
            better = np.isnan(x) | (better & ~np.isnan(best))
        best = np.where(better, x, best)
        best_idx = np.where(better, i, best_idx)
        vals[i] = best
        idxs[i] = best_idx


def _cummax_cummin(self: Tensor, dim: int, is_max: bool) -> tuple[Tensor, Tensor]:
    dim = maybe_wrap_dim(dim, self.dim())
    values = at.empty(list(self.sizes()), dtype=self.scalar_type(), device=self.device())
    indices = at.empty(list(self.sizes()), dtype=ScalarType.Long, device=self.device())
    if self.numel() and not values.is_meta():  # Note [A meta tensor's kernel is no call]
        cummax_cummin_helper(values, indices, self, dim, is_max)
    return values, indices


@native_function(SOURCE, name="cummax")
def cummax(self: Tensor, dim: int) -> tuple[Tensor, Tensor]:
    return _cummax_cummin(self, dim, True)


@native_function(SOURCE, name="cummin")
def cummin(self: Tensor, dim: int) -> tuple[Tensor, Tensor]:
    return _cummax_cummin(self, dim, False)
