"""tril, triu and their in-place forms: keep the lower / upper triangle of the last two dims.

Mirrors `aten/src/ATen/native/TriangularOps.cpp` (TORCH_META_FUNC(tril/triu) +
TORCH_IMPL_FUNC(tril_cpu/triu_cpu) and apply_triu_tril). The functional op writes into a new
contiguous tensor; the in-place op zeroes the other triangle of self where it lies. The
elements are chosen per matrix of the batch by the kernel below: row i keeps columns
j <= i + k (tril) or j >= i + k (triu).
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.cuda.empty_tensor import empty_structured_output
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/TriangularOps.cpp"


@traced("kernel", "at::native::(anonymous)::apply_triu_tril", SOURCE, legacy="apply_triu_tril")
def apply_triu_tril(result: Tensor, self: Tensor, k: int, upper: bool) -> None:
    """Per matrix: keep one triangle of self in result, zero the other."""
    src = self.numpy_view()
    rows, cols = src.shape[-2:]
    i = np.arange(rows)[:, None]
    j = np.arange(cols)[None, :]
    keep = (j - i >= k) if upper else (j - i <= k)
    result.numpy_view()[...] = np.where(keep, src, np.zeros((), src.dtype))


def _tril_triu(name: str, self: Tensor, k: int, upper: bool, inplace: bool) -> Tensor:
    TORCH_CHECK(self.dim() >= 2, name, ": input tensor must have at least 2 dimensions")
    # the structured kernel's output: at::detail::empty_cpu (empty_cuda on CUDA), no dispatcher call
    result = (
        self
        if inplace
        else empty_structured_output(list(self.sizes()), self.scalar_type(), self.device())
    )
    if self.numel() and not result.is_meta():  # Note [A meta tensor's kernel is no call]
        apply_triu_tril(result, self, k, upper)
    return result


@native_function(SOURCE, name="tril_cpu")
def tril(self: Tensor, diagonal: int = 0) -> Tensor:
    return _tril_triu("tril", self, diagonal, False, False)


@native_function(SOURCE, name="triu_cpu")
def triu(self: Tensor, diagonal: int = 0) -> Tensor:
    return _tril_triu("triu", self, diagonal, True, False)


@native_function(SOURCE, name="tril_cpu_")
def tril_(self: Tensor, diagonal: int = 0) -> Tensor:
    return _tril_triu("tril", self, diagonal, False, True)


@native_function(SOURCE, name="triu_cpu_")
def triu_(self: Tensor, diagonal: int = 0) -> Tensor:
    return _tril_triu("triu", self, diagonal, True, True)
