"""searchsorted and bucketize: where values would be inserted into sorted sequences.

Mirrors `aten/src/ATen/native/Bucketization.cpp` and the checks of `BucketizationUtils.h`
(searchsorted_pre_check, searchsorted_maybe_trim_input_tensors, searchsorted_scalar_tensor).
The boundaries are one 1-d sequence for every value, or one sequence per row of values (the
first N-1 dims match); `sorter` gives the order of an unsorted sequence. The loop
(searchsorted_cpu_contiguous) is the C++ binary search, run on all values at once: lower bound
moves right while `!(mid >= val)`, upper bound while `!(mid > val)`, so a NaN value lands after
every boundary.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.native.resize import resize_output
from tensortrace.aten.scalar_ops import scalar_type_of, wrapped_scalar_tensor
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType, isComplexType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/Bucketization.cpp"
INT_MAX = 2**31 - 1


def searchsorted_dims_matched_before_last_dim(boundaries: Tensor, input: Tensor) -> bool:
    if boundaries.dim() != input.dim():
        return False
    return list(boundaries.sizes())[:-1] == list(input.sizes())[:-1]


def _sizes(t: Tensor) -> str:
    return "[" + ", ".join(str(s) for s in t.sizes()) + "]"


def searchsorted_pre_check(
    boundaries: Tensor,
    input: Tensor,
    output: Tensor,
    out_int32: bool,
    right: bool,
    side_opt: str | None,
    sorter: Tensor | None,
) -> None:
    if side_opt is not None:
        TORCH_CHECK(
            side_opt in ("left", "right"),
            "torch.searchsorted(): side can only be 'left' or 'right' but got ",
            side_opt,
        )
        TORCH_CHECK(
            not right or side_opt == "right",
            "torch.searchsorted(): side and right can't be set to opposites, got side of ",
            side_opt,
            " while right was True",
        )
    TORCH_CHECK(
        boundaries.device() == input.device(),
        "torch.searchsorted(): boundaries and input value tensors should have same device type, "
        "but got boundaries tensor device type ",
        boundaries.device(),
        " and input value tensor device type ",
        input.device(),
    )
    if sorter is not None:
        TORCH_CHECK(
            list(sorter.sizes()) == list(boundaries.sizes()),
            "torch.searchsorted(): boundary and sorter must have the same size, but got "
            "boundary tensor ",
            _sizes(boundaries),
            "and got sorter tensor ",
            _sizes(sorter),
        )
        TORCH_CHECK(
            sorter.scalar_type() == ScalarType.Long,
            "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype ",
            sorter.scalar_type(),
        )
        if sorter.numel() > 0:
            vmin, vmax = at.aminmax(sorter)
            TORCH_CHECK(
                int(vmin.item()) >= 0 and int(vmax.item()) < sorter.size(-1),
                "torch.searchsorted(): sorter index out of range",
            )
    TORCH_CHECK(
        input.dim() > 0 or (input.numel() == 1 and boundaries.dim() == 1),
        "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension "
        "is 1, but we got boundaries tensor dim(",
        boundaries.dim(),
        ") and input value's dim(",
        input.dim(),
        ") numel(",
        input.numel(),
        ")",
    )
    TORCH_CHECK(
        boundaries.dim() != 0,
        "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
        "dimension",
    )
    TORCH_CHECK(
        boundaries.dim() == 1 or searchsorted_dims_matched_before_last_dim(boundaries, input),
        "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
        "dimensions of boundaries tensor and input value tensor must match, but we got "
        "boundaries tensor ",
        _sizes(boundaries),
        " and input value tensor ",
        _sizes(input),
    )
    output_dtype = output.scalar_type()
    TORCH_CHECK(
        (output_dtype == ScalarType.Long and not out_int32)
        or (output_dtype == ScalarType.Int and out_int32),
        "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or "
        "Long(int64) depending on whether out_int32 flag is True, but we got output tensor's "
        "dtype ",
        output_dtype,
        " and out_int32 flag is ",
        "True" if out_int32 else "False",
    )
    if out_int32:
        TORCH_CHECK(
            boundaries.size(-1) < INT_MAX,
            "torch.searchsorted(): the size of boundaries' last dimension should be less than ",
            INT_MAX,
            ", but we got ",
            boundaries.size(-1),
        )


@traced("kernel", "at::native::(anonymous)::searchsorted_cpu_contiguous", SOURCE)
def searchsorted_cpu_contiguous(
    result: Tensor, input: Tensor, boundaries: Tensor, right: bool, sorter: Tensor | None
) -> None:
    dtype = input.scalar_type()
    TORCH_CHECK_NOT_IMPLEMENTED(
        dtype != ScalarType.Bool and not isComplexType(dtype),
        '"searchsorted_out_cpu" not implemented for \'',
        dtype,
        "'",
    )
    bd = boundaries.numpy_view()
    idim = bd.shape[-1]
    rows = bd.reshape(-1, idim)
    order = sorter.numpy_view().reshape(-1, idim) if sorter is not None else None
    values = input.numpy_view().reshape(-1)
    # the row of boundaries each value searches: one row for all, or one per input row
    per_row = 1 if boundaries.dim() == 1 else max(input.size(-1), 1)
    row_of = (
        np.arange(values.size) // per_row
        if boundaries.dim() > 1
        else np.zeros(values.size, dtype=np.int64)
    )
    start = np.zeros(values.size, dtype=np.int64)
    end = np.full(values.size, idim, dtype=np.int64)
    with np.errstate(invalid="ignore"):
        while True:
            active = start < end
            if not active.any():
                break
            mid = start + ((end - start) >> 1)
            mid_c = np.minimum(mid, idim - 1)
            pos = mid_c if order is None else order[row_of, mid_c]
            mid_val = rows[row_of, pos]
            go_right = ~(mid_val > values) if right else ~(mid_val >= values)
            start = np.where(active & go_right, mid + 1, start)
            end = np.where(active & ~go_right, mid, end)
    result.numpy_view()[...] = start.reshape(result.numpy_view().shape)


def _common(a: Tensor, b: Tensor) -> ScalarType:
    return at.result_type(b, a)


@native_function(SOURCE, name="searchsorted_out_cpu")
def searchsorted_out_cpu(
    sorted_sequence: Tensor,
    self: Tensor | Any,
    out_int32: bool,
    right: bool,
    side: str | None,
    sorter: Tensor | None,
    out: Tensor,
) -> Tensor:
    if not isinstance(self, Tensor):
        self = searchsorted_scalar_tensor(self, sorted_sequence)
    searchsorted_pre_check(sorted_sequence, self, out, out_int32, right, side, sorter)
    resize_output(out, list(self.sizes()))
    is_right = side == "right" if side is not None else right
    if self.numel() == 0:
        return out
    result = out if out.is_contiguous() else out.contiguous()
    final_input, final_boundaries = self.contiguous(), sorted_sequence.contiguous()
    if final_input.scalar_type() != final_boundaries.scalar_type():
        # searchsorted_maybe_trim_input_tensors: both in their promoted type
        common = _common(self, sorted_sequence)
        final_input, final_boundaries = final_input.to(common), final_boundaries.to(common)
    final_sorter = sorter.contiguous() if sorter is not None else None
    searchsorted_cpu_contiguous(result, final_input, final_boundaries, is_right, final_sorter)
    if not out.is_contiguous():
        out.copy_(result)
    return out


def searchsorted_scalar_tensor(scalar: Any, like: Tensor) -> Tensor:
    """c10::scalar_to_tensor on the boundaries' device, marked as a wrapped number (so it
    promotes as a Python number does)."""
    if like.device().is_cpu():
        return wrapped_scalar_tensor(scalar)
    tensor = at.scalar_tensor(scalar, device=like.device(), dtype=scalar_type_of(scalar))
    tensor.unsafeGetTensorImpl().is_wrapped_number_ = True
    return tensor


@native_function(SOURCE, name="searchsorted_cpu")
def searchsorted_cpu(
    sorted_sequence: Tensor,
    self: Tensor | Any,
    out_int32: bool = False,
    right: bool = False,
    side: str | None = None,
    sorter: Tensor | None = None,
) -> Tensor:
    if not isinstance(self, Tensor):
        self = searchsorted_scalar_tensor(self, sorted_sequence)
    dtype = ScalarType.Int if out_int32 else ScalarType.Long
    result = at.empty([0], dtype=dtype, device=self.device())
    return searchsorted_out_cpu(sorted_sequence, self, out_int32, right, side, sorter, result)


@native_function(SOURCE, name="bucketize_out_cpu")
def bucketize_out_cpu(
    self: Tensor, boundaries: Tensor, out_int32: bool, right: bool, out: Tensor
) -> Tensor:
    TORCH_CHECK(
        boundaries.dim() == 1,
        "boundaries tensor must be 1 dimension, but got dim(",
        boundaries.dim(),
        ")",
    )
    return searchsorted_out_cpu(boundaries, self, out_int32, right, None, None, out)


@native_function(SOURCE, name="bucketize_cpu")
def bucketize_cpu(
    self: Tensor | Any, boundaries: Tensor, out_int32: bool = False, right: bool = False
) -> Tensor:
    if not isinstance(self, Tensor):
        self = searchsorted_scalar_tensor(self, boundaries)
    dtype = ScalarType.Int if out_int32 else ScalarType.Long
    result = at.empty([0], dtype=dtype, device=self.device())
    return bucketize_out_cpu(self, boundaries, out_int32, right, result)
