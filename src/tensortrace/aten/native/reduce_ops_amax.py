"""amax, amin and logsumexp: reductions over a list of dims.

Mirrors `aten/src/ATen/native/ReduceOps.cpp`: TORCH_META_FUNC(amax/amin) (no identity, so an
empty reduced dim is an error; NaN propagates) with its kernel, and logsumexp, which is written
from other ops: integers are first converted to the default float dtype, then
`maxes = amax(self, dims, true)`, infinite maxes are replaced by 0 (so that inf - inf is never
computed), and the result is `log(sum(exp(self - maxes), dims)) + maxes`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from tensortrace.aten.native.reduce_ops_utils import get_reduction_shape, zero_numel_check_dims
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.default_dtype import get_default_dtype
from tensortrace.c10.scalar_type import isIntegralType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/ReduceOps.cpp"


def _at() -> Any:
    from tensortrace.aten import functions as at

    return at


@traced("kernel", "at::native::(anonymous)::max_values_kernel_impl",
        "aten/src/ATen/native/cpu/ReduceOpsKernel.cpp", legacy="max_values_kernel_impl")
def _extreme_kernel(result: Tensor, self: Tensor, dims: tuple[int, ...], is_max: bool) -> None:
    src = self.numpy_view()
    fn = np.max if is_max else np.min  # both propagate NaN, as PyTorch's max_impl does
    out = fn(src, axis=dims, keepdims=True) if src.ndim else src
    result.numpy_view()[...] = out.reshape(result.numpy_view().shape)


def _amax_amin(self: Tensor, dim: Sequence[int], keepdim: bool, is_max: bool) -> Tensor:
    name = "amax()" if is_max else "amin()"
    dims = [maybe_wrap_dim(d, self.dim()) for d in dim] or list(range(self.dim()))
    if self.numel() == 0:
        zero_numel_check_dims(self, dims or [0], name)
    shape = get_reduction_shape(self, list(dim), keepdim)
    result = _at().empty(list(shape), dtype=self.scalar_type())
    if result.numel():
        _extreme_kernel(result, self, tuple(dims), is_max)
    return result


@native_function(SOURCE, name="amax")
def amax(self: Tensor, dim: Sequence[int] = (), keepdim: bool = False) -> Tensor:
    return _amax_amin(self, dim, keepdim, True)


@native_function(SOURCE, name="amin")
def amin(self: Tensor, dim: Sequence[int] = (), keepdim: bool = False) -> Tensor:
    return _amax_amin(self, dim, keepdim, False)


@native_function(SOURCE, name="logsumexp")
def logsumexp(self: Tensor, dim: Sequence[int], keepdim: bool = False) -> Tensor:
    at = _at()
    if isIntegralType(self.scalar_type(), True):
        self = self.to(get_default_dtype())
    dims = list(dim)
    if self.numel() == 0:
        return at.sum(self.exp(), dims, keepdim).log()
    maxes = at.amax(self, dims, True)
    # squeeze_multiple: with dims=() nothing is squeezed (and add_ below then fails, as in torch)
    maxes_squeezed = maxes if keepdim or not dims else maxes.squeeze(dims)
    maxes_squeezed.masked_fill_(maxes_squeezed.abs().eq(math.inf), 0)
    result = at.sum(self.sub(maxes).exp_(), dims, keepdim)
    return result.log_().add_(maxes_squeezed)


@native_function(SOURCE, name="count_nonzero")
def count_nonzero(self: Tensor, dim: Sequence[int] | int | None = None) -> Tensor:
    """count_nonzero.dim_IntList and count_nonzero: sum(self != 0) over the dims (all dims)."""
    dims = [] if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    return _at().sum(self.ne(0), dims)
