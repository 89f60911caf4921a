"""kthvalue, median and nanmedian: select one element of each slice by its rank.

Mirrors the selection half of `aten/src/ATen/native/Sorting.cpp` (kthvalue_out_impl_cpu,
median_with_indices_impl, median_impl, and the CompositeExplicitAutograd kthvalue / median.dim
/ nanmedian.dim that allocate empty outputs and call the out= overloads). The loops are in
Sorting.cpp itself, not behind a DispatchStub; here they are the `kernel` frames below.

Which index is returned among equal values follows the C++ selection each op runs:
kthvalue partitions (value, index) pairs with TH's quick_select_template (Sedgewick's
median-of-three quicksort, ported as it is), so ties come out as that algorithm leaves them;
median.dim orders by (value, index), a total order, so the median's index is the one a stable
sort puts at rank (n - 1) / 2. torch.median returns NaN (and the first NaN's index) when a slice
holds one; torch.nanmedian takes the median of the other values, or NaN if there are none.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.cpu import stl_algorithms
from tensortrace.aten.native.reduce_ops_utils import zero_numel_check_dims
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.resize import resize_output
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType, isComplexType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/Sorting.cpp"


def check_all_types_and2(name: str, dtype: ScalarType) -> None:
    """AT_DISPATCH_ALL_TYPES_AND2(kHalf, kBFloat16, ...): no bool, no complex."""
    TORCH_CHECK_NOT_IMPLEMENTED(
        dtype != ScalarType.Bool and not isComplexType(dtype),
        '"',
        name,
        "\" not implemented for '",
        dtype,
        "'",
    )


def reduction_with_indices_allocate_or_resize_output(
    values: Tensor, indices: Tensor, self: Tensor, dim_: int, keepdim: bool
) -> None:
    """_reduction_with_indices_allocate_or_resize_output (ReduceOpsUtils.h): both outputs
    get self's sizes with `dim` set to 1 (squeezed again by the caller if not keepdim)."""
    dim = maybe_wrap_dim(dim_, self.dim(), True)
    result_sizes = list(self.sizes())
    if result_sizes:
        result_sizes[dim] = 1
    TORCH_CHECK(
        values.scalar_type() == self.scalar_type(), "output values must be of same type as input"
    )
    if not keepdim and values.dim() == self.dim() - 1:
        values.unsqueeze_(dim)  # keeps a passed-in non-contiguous out= tensor's layout
    resize_output(values, result_sizes)
    TORCH_CHECK(
        indices.scalar_type() == ScalarType.Long, "output indices must be of scalar type Long"
    )
    if not keepdim and indices.dim() == self.dim() - 1:
        indices.unsqueeze_(dim)
    resize_output(indices, result_sizes)


# ---- kthvalue ------------------------------------------------------------------------------------


def quick_select_template(
    arr: list[Any], idx: list[int], k: int, gt_or_nan: Callable[[Any, Any], bool]
) -> None:
    """TH's quickselect (Sedgewick 1978, Program 2), moving `idx` along with `arr`."""

    def swap(i: int, j: int) -> None:
        arr[i], arr[j] = arr[j], arr[i]
        idx[i], idx[j] = idx[j], idx[i]

    lo, hi = 0, len(arr) - 1
    while True:
        if hi <= lo:  # one element only
            return
        if hi == lo + 1:  # two elements only
            if gt_or_nan(arr[lo], arr[hi]):
                swap(lo, hi)
            return
        mid = (lo + hi) >> 1  # median of three for the pivot
        swap(mid, lo + 1)
        if gt_or_nan(arr[lo + 1], arr[hi]):
            swap(lo + 1, hi)
        if gt_or_nan(arr[lo], arr[hi]):
            swap(lo, hi)
        if gt_or_nan(arr[lo + 1], arr[lo]):
            swap(lo + 1, lo)
        i, j, piv = lo + 1, hi, arr[lo]
        while True:
            i += 1
            while gt_or_nan(piv, arr[i]):
                i += 1
            j -= 1
            while gt_or_nan(arr[j], piv):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:  # re-set the active partition
            lo = i
        if j >= k:
            hi = j - 1


def _gt_or_nan(x: Any, y: Any) -> bool:
    """NaN sorts as the largest value, for NumPy compatibility."""
    return (x != x and y == y) or x > y


@traced("kernel", "at::native::(anonymous)::kthvalue_out_impl_cpu (loop)", SOURCE)
def kthvalue_loop(values: Tensor, indices: Tensor, self: Tensor, k: int, dim: int) -> None:
    """dim_apply over the slices of a contiguous clone: quickselect the k-th smallest."""
    src = np.moveaxis(self.numpy_view(), dim, -1)
    out_v = np.moveaxis(values.numpy_view(), dim, -1)
    out_i = np.moveaxis(indices.numpy_view(), dim, -1)
    for pos in np.ndindex(*src.shape[:-1]):
        row = src[pos].tolist()
        idx = list(range(len(row)))
        quick_select_template(row, idx, k - 1, _gt_or_nan)
        out_v[pos + (0,)] = row[k - 1]
        out_i[pos + (0,)] = idx[k - 1]


def kthvalue_out_impl_cpu(
    values: Tensor, indices: Tensor, self: Tensor, k: int, dim_: int, keepdim: bool
) -> tuple[Tensor, Tensor]:
    dim = maybe_wrap_dim(dim_, self.dim(), True)
    if self.numel() == 0 or self.dim() == 0:
        zero_numel_check_dims(self, dim, "kthvalue()")
    TORCH_CHECK(
        0 < k <= (self.size(dim) if self.dim() > 0 else 1),
        "kthvalue(): selected number k out of range for dimension ",
        dim,
    )
    reduction_with_indices_allocate_or_resize_output(values, indices, self, dim_, keepdim)
    if self.dim() == 0 and self.numel() == 1:
        values.copy_(self)
        indices.zero_()
        return values, indices
    check_all_types_and2("kthvalue_cpu", self.scalar_type())
    tmp_values = self.clone(memory_format="contiguous_format")
    if values.numel():
        kthvalue_loop(values, indices, tmp_values, k, dim)
    if not keepdim:
        values.squeeze_(dim)
        indices.squeeze_(dim)
    return values, indices


@native_function(SOURCE, name="kthvalue_out_cpu")
def kthvalue_out_cpu(
    self: Tensor, k: int, dim: int, keepdim: bool, values: Tensor, indices: Tensor
) -> tuple[Tensor, Tensor]:
    return kthvalue_out_impl_cpu(values, indices, self, k, dim, keepdim)


@native_function(SOURCE, name="kthvalue")
def kthvalue(self: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    values = at.empty([0], dtype=self.scalar_type(), device=self.device())
    indices = at.empty([0], dtype=ScalarType.Long, device=self.device())
    at.kthvalue(self, k, dim, keepdim, values=values, indices=indices)
    return values, indices


# ---- median / nanmedian --------------------------------------------------------------------------


def _median_of_row(row: np.ndarray, ignore_nan: bool) -> int:
    """The index median_with_indices_impl's nth_element leaves at the median's rank."""
    size = row.size
    isnan = np.isnan(row) if row.dtype.kind == "f" else np.zeros(size, dtype=bool)
    if not ignore_nan:
        if isnan.any():
            return int(np.argmax(isnan))  # std::find_if: the first NaN
        # the comparator orders (value, index): a total order, as a stable sort's
        return int(np.argsort(row, kind="stable")[(size - 1) // 2])
    num_nan = int(isnan.sum())
    if num_nan < size:  # non-NaN values come first, ordered by (value, index)
        return int(np.argsort(row, kind="stable")[(size - num_nan - 1) // 2])
    # all NaN: no element is less than another, and nth_element leaves what it leaves
    values = row.tolist()
    order = list(range(size))

    def comp(i: int, j: int) -> bool:
        a, b = values[i], values[j]
        return a < b or (a == b and i < j) or (b != b and a == a)

    stl_algorithms.nth_element(order, 0, int((size - num_nan - 1) / 2), size, comp)
    return order[int((size - num_nan - 1) / 2)]


@traced("kernel", "at::native::(anonymous)::median_with_indices_impl (loop)", SOURCE)
def median_with_indices_loop(
    values: Tensor, indices: Tensor, self: Tensor, dim: int, ignore_nan: bool
) -> None:
    src = np.moveaxis(self.numpy_view(), dim, -1)
    out_v = np.moveaxis(values.numpy_view(), dim, -1)
    out_i = np.moveaxis(indices.numpy_view(), dim, -1)
    for pos in np.ndindex(*src.shape[:-1]):
        row = src[pos]
        i = _median_of_row(row, ignore_nan)
        out_v[pos + (0,)] = row[i]
        out_i[pos + (0,)] = i


def median_with_indices_impl(
    values: Tensor, indices: Tensor, self: Tensor, dim: int, keepdim: bool, ignore_nan: bool
) -> tuple[Tensor, Tensor]:
    dim = maybe_wrap_dim(dim, self.dim())
    size = self.size(dim) if self.dim() > 0 else 1
    if self.numel() == 0 or self.dim() == 0:
        zero_numel_check_dims(self, dim, "median()")
    TORCH_CHECK(
        size > 0,
        "median() cannot compute median for a dimension of size 0 because ",
        "the operation does not have an identity",
    )
    # checkScalarType / checkSameType (TensorUtils.cpp), naming the legacy tensor types
    TORCH_CHECK(
        indices.scalar_type() == ScalarType.Long,
        "Expected tensor for argument #1 'indices' to have scalar type Long; but got torch.",
        indices.scalar_type(),
        "Tensor instead (while checking arguments for median)",
    )
    TORCH_CHECK(
        values.scalar_type() == self.scalar_type(),
        "Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; "
        "but type torch.",
        values.scalar_type(),
        "Tensor does not equal torch.",
        self.scalar_type(),
        "Tensor (while checking arguments for median)",
    )
    out_shape = list(self.sizes())
    if self.dim() > 0:
        if keepdim:
            out_shape[dim] = 1
        else:
            del out_shape[dim]
    resize_output(values, out_shape)
    resize_output(indices, out_shape)
    # the same number of dims for every tensor of dim_apply
    in_ = self if self.dim() > 0 else self.unsqueeze(0)
    vals = values if keepdim and self.dim() > 0 else values.unsqueeze(dim)
    inds = indices if keepdim and self.dim() > 0 else indices.unsqueeze(dim)
    check_all_types_and2("median_out", in_.scalar_type())
    if vals.numel():
        median_with_indices_loop(vals, inds, in_, dim, ignore_nan)
    return values, indices


@traced("kernel", "at::native::(anonymous)::median_impl (loop)", SOURCE)
def median_impl_loop(out: Tensor, in_: Tensor, ignore_nan: bool) -> None:
    a = in_.numpy_view().reshape(-1)
    isnan = np.isnan(a) if a.dtype.kind == "f" else np.zeros(a.size, dtype=bool)
    if not ignore_nan and isnan.any():
        out.numpy_view()[()] = np.nan
        return
    num_nan = int(isnan.sum()) if ignore_nan else 0
    k = int((a.size - num_nan - 1) / 2)
    # std::nth_element on the values: the element of rank k (NaN last for nanmedian)
    out.numpy_view()[()] = np.sort(a, kind="stable")[k]


def median_impl(self: Tensor, ignore_nan: bool) -> Tensor:
    """The median of all the values (NaN for an empty tensor)."""
    if self.numel() == 0:
        return at.full([], math.nan, dtype=self.scalar_type(), device=self.device())
    check_all_types_and2("nanmedian_cpu" if ignore_nan else "median_cpu", self.scalar_type())
    in_ = self.clone()  # the C++ partitions a copy in place
    out = at.empty([], dtype=self.scalar_type(), device=self.device())
    median_impl_loop(out, in_, ignore_nan)
    return out


@native_function(SOURCE, name="median_cpu")
def median_cpu(self: Tensor) -> Tensor:
    return median_impl(self, False)


@native_function(SOURCE, name="nanmedian_cpu")
def nanmedian_cpu(self: Tensor) -> Tensor:
    return median_impl(self, True)


@native_function(SOURCE, name="median_out_cpu")
def median_out_cpu(
    self: Tensor, dim: int, keepdim: bool, values: Tensor, indices: Tensor
) -> tuple[Tensor, Tensor]:
    return median_with_indices_impl(values, indices, self, dim, keepdim, False)


@native_function(SOURCE, name="nanmedian_out_cpu")
def nanmedian_out_cpu(
    self: Tensor, dim: int, keepdim: bool, values: Tensor, indices: Tensor
) -> tuple[Tensor, Tensor]:
    return median_with_indices_impl(values, indices, self, dim, keepdim, True)


def _empty_outputs(self: Tensor) -> tuple[Tensor, Tensor]:
    values = at.empty([0], dtype=self.scalar_type(), device=self.device())
    return values, at.empty([0], dtype=ScalarType.Long, device=self.device())


@native_function(SOURCE, name="median")
def median(self: Tensor, dim: int, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    values, indices = _empty_outputs(self)
    at.median(self, dim, keepdim, values=values, indices=indices)
    return values, indices


@native_function(SOURCE, name="nanmedian")
def nanmedian(self: Tensor, dim: int, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    values, indices = _empty_outputs(self)
    at.nanmedian(self, dim, keepdim, values=values, indices=indices)
    return values, indices
