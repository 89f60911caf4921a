"""logsumexp and count_nonzero: reductions over a list of dims, written from other ops.

Mirrors `aten/src/ATen/native/ReduceOps.cpp` (amax / amin themselves are structured ops in
linalg_norms.py). logsumexp: integers are first converted to the default float dtype, then
`maxes = amax(self, dims, true)`, infinite maxes are replaced by 0 (so that inf - inf is never
computed), and the result is `log(sum(exp(self - maxes), dims)) + maxes`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.default_dtype import get_default_dtype
from tensortrace.c10.scalar_type import isIntegralType

SOURCE = "aten/src/ATen/native/ReduceOps.cpp"


@native_function(SOURCE, name="logsumexp")
def logsumexp(self: Tensor, dim: Sequence[int], keepdim: bool = False) -> Tensor:
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
    return at.sum(self.ne(0), dims)
