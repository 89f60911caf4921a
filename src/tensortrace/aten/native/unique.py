"""_unique2, unique_dim, unique_consecutive and unique_dim_consecutive: distinct values.

Mirrors `aten/src/ATen/native/Unique.cpp` (_unique2_cpu, unique_dim_cpu,
unique_consecutive_cpu, unique_dim_consecutive_cpu). The CPU versions always sort (sorted=False
gives sorted values too); NaN is never equal to NaN, so every NaN is its own value. The
inverse has self's shape (for a dim: one entry per slice), counts one entry per unique value;
_unique2 and unique_consecutive return empty tensors for the ones not asked for, unique_dim
always computes both. torch.unique (torch/functional.py) picks the op and the results.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.device import Device
from tensortrace.c10.exception import TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/Unique.cpp"


def _from_numpy(arr: np.ndarray, dtype: ScalarType, device: Device) -> Tensor:
    result = at.empty(list(arr.shape), dtype=dtype, device=device)
    if arr.size:
        result.numpy_view()[...] = arr
    return result


def _long(arr: np.ndarray, device: Device) -> Tensor:
    return _from_numpy(np.asarray(arr, dtype=np.int64), ScalarType.Long, device)


def _empty_long(device: Device) -> Tensor:
    return at.empty([0], dtype=ScalarType.Long, device=device)


@traced(
    "kernel",
    "at::native::(anonymous)::unique_cpu_sorted_template",
    SOURCE,
    legacy="unique_cpu_sorted_template",
)
def _unique_sorted(flat: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    values, inverse, counts = np.unique(
        flat, return_inverse=True, return_counts=True, equal_nan=False
    )
    return values, inverse.reshape(-1), counts


@traced(
    "kernel",
    "at::native::(anonymous)::unique_consecutive_cpu_template",
    SOURCE,
    legacy="unique_consecutive_cpu_template",
)
def _unique_consecutive(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """rows: (n, k); a new group starts where a row differs from the one before it."""
    n = rows.shape[0]
    if n == 0:
        return np.zeros(0, np.intp), np.zeros(0, np.int64), np.zeros(0, np.int64)
    new = np.ones(n, dtype=bool)
    if n > 1:
        new[1:] = np.any(rows[1:] != rows[:-1], axis=1)
    starts = np.flatnonzero(new)
    inverse = np.cumsum(new) - 1
    counts = np.diff(np.append(starts, n))
    return starts, inverse, counts


def _check_not_complex(name: str, self: Tensor) -> None:
    """The AT_DISPATCH of the unique kernels has no complex case (complex has no order)."""
    st = self.scalar_type()
    TORCH_CHECK_NOT_IMPLEMENTED(
        st not in (ScalarType.ComplexFloat, ScalarType.ComplexDouble),
        '"',
        name,
        "\" not implemented for '",
        st,
        "'",
    )


@native_function(SOURCE, name="_unique2_cpu")
def _unique2(
    self: Tensor,
    sorted: bool = True,
    return_inverse: bool = False,  # noqa: A002
    return_counts: bool = False,
) -> tuple[Tensor, Tensor, Tensor]:
    _check_not_complex("unique", self)
    flat = self.numpy_view().reshape(-1)
    values, inverse, counts = _unique_sorted(flat)
    output = _from_numpy(values, self.scalar_type(), self.device())
    inv = (
        _long(inverse.reshape(self.sizes()), self.device())
        if return_inverse
        else _empty_long(self.device())
    )
    cnt = _long(counts, self.device()) if return_counts else _empty_long(self.device())
    return output, inv, cnt


def _rows(self: Tensor, dim: int) -> np.ndarray:
    arr = np.moveaxis(self.numpy_view(), dim, 0)
    return arr.reshape(arr.shape[0], int(np.prod(arr.shape[1:])))


def _gather_slices(self: Tensor, dim: int, picks: np.ndarray) -> Tensor:
    """The picked slices stacked along dim 0, then moved back to `dim` (a permuted view, as
    unique_dim_cpu_template's stack(...).moveaxis(0, dim))."""
    arr = np.take(np.moveaxis(self.numpy_view(), dim, 0), picks, axis=0)
    return _from_numpy(arr, self.scalar_type(), self.device()).movedim(0, dim)


@native_function(SOURCE, name="unique_dim_cpu")
def unique_dim(
    self: Tensor,
    dim: int,
    sorted: bool = True,  # noqa: A002
    return_inverse: bool = False,
    return_counts: bool = False,
) -> tuple[Tensor, Tensor, Tensor]:
    _check_not_complex("unique_dim", self)
    dim = maybe_wrap_dim(dim, self.dim())
    rows = _rows(self, dim)
    order = np.lexsort(rows.T[::-1]) if rows.shape[1] else np.arange(rows.shape[0])
    starts, group_inverse, counts = _unique_consecutive(rows[order])
    inverse = np.empty(rows.shape[0], dtype=np.int64)
    inverse[order] = group_inverse
    output = _gather_slices(self, dim, order[starts])
    return output, _long(inverse, self.device()), _long(counts, self.device())


@native_function(SOURCE, name="unique_consecutive_cpu")
def unique_consecutive(
    self: Tensor, return_inverse: bool = False, return_counts: bool = False, dim: int | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    if dim is not None:
        return at.unique_dim_consecutive(self, dim, return_inverse, return_counts)
    _check_not_complex("unique", self)
    flat = self.numpy_view().reshape(-1, 1)
    starts, inverse, counts = _unique_consecutive(flat)
    output = _from_numpy(flat[starts, 0], self.scalar_type(), self.device())
    inv = (
        _long(inverse.reshape(self.sizes()), self.device())
        if return_inverse
        else _empty_long(self.device())
    )
    cnt = _long(counts, self.device()) if return_counts else _empty_long(self.device())
    return output, inv, cnt


@native_function(SOURCE, name="unique_dim_consecutive_cpu")
def unique_dim_consecutive(
    self: Tensor, dim: int, return_inverse: bool = False, return_counts: bool = False
) -> tuple[Tensor, Tensor, Tensor]:
    dim = maybe_wrap_dim(dim, self.dim())
    starts, inverse, counts = _unique_consecutive(_rows(self, dim))
    return (
        _gather_slices(self, dim, starts),
        _long(inverse, self.device()),
        _long(counts, self.device()),
    )
