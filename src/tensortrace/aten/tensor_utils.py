"""The strides a view of a new shape would need over an existing layout, if any exist.

Mirrors `computeStride` of `aten/src/ATen/TensorUtils.cpp` (THTensor_compute_stride in 2019's
TH): view() succeeds exactly when this finds strides (Note [Views share storage]).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from tensortrace.trace import traced

TENSOR_UTILS = "aten/src/ATen/TensorUtils.cpp"


@traced("native", "at::detail::computeStride", TENSOR_UTILS, legacy="THTensor_compute_stride")
def computeStride(
    oldshape: Sequence[int], oldstride: Sequence[int], newshape: Sequence[int]
) -> list[int] | None:
    """Strides that let `newshape` view memory laid out as (oldshape, oldstride), or None.

    Walks the old dims from the back, grouping them into chunks that are contiguous with each
    other; each chunk must be exactly covered by a run of new dims (size-1 new dims fit
    anywhere). A new dim that would straddle two chunks makes a view impossible.
    """
    if len(oldshape) == 0:
        return [1] * len(newshape)
    numel = math.prod(oldshape)
    if numel == 0 and list(oldshape) == list(newshape):
        return list(oldstride)
    newstride = [0] * len(newshape)
    if numel == 0:
        for view_d in range(len(newshape) - 1, -1, -1):
            if view_d == len(newshape) - 1:
                newstride[view_d] = 1
            else:
                newstride[view_d] = max(newshape[view_d + 1], 1) * newstride[view_d + 1]
        return newstride
    view_d = len(newshape) - 1
    chunk_base_stride = oldstride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[tensor_d]
        # a chunk ends where the next dim out is not laid out right after this one
        if tensor_d == 0 or (
            oldshape[tensor_d - 1] != 1
            and oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride
        ):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base_stride
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = oldstride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return newstride
