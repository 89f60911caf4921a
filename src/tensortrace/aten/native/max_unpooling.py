"""max_unpool2d: the inverse of max_pool2d, each value written back at its argmax.

Mirrors `aten/src/ATen/native/MaxUnpooling.cpp` (max_unpooling2d_forward_out_cpu: the checks,
the output resized and zeroed) and the loop of `aten/src/ATen/native/cpu/MaxUnpoolKernel.cpp`
(cpu_max_unpool: for each plane, output[plane][indices[i]] = input[i], an index outside the
plane an error). F.max_unpool1d runs it on an unsqueezed input. Its derivative gathers the
gradient at the indices (max_pool_double_backward).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType, isFloatingType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/MaxUnpooling.cpp"
KERNEL = "aten/src/ATen/native/cpu/MaxUnpoolKernel.cpp"


@traced("kernel", "at::native::(anonymous)::cpu_max_unpool", KERNEL)
def _max_unpool_kernel(
    out: np.ndarray, x: np.ndarray, idx: np.ndarray, oheight: int, owidth: int
) -> None:
    """out, x, idx as (planes, ...): out[p, idx[p, i]] = x[p, i]."""
    size = oheight * owidth
    planes = x.shape[0]
    x, idx = x.reshape(planes, -1), idx.reshape(planes, -1)
    bad = (idx < 0) | (idx >= size)
    if bad.any():  # the loop goes on, and reports the last invalid index it met
        TORCH_CHECK(
            False,
            f"Found an invalid max index: {int(idx[bad][-1])} (output volumes are of size "
            f"{oheight}x{owidth})",
        )
    flat = out.reshape(planes, size)
    rows = np.repeat(np.arange(planes), x.shape[1])
    flat[rows, idx.reshape(-1)] = x.reshape(-1)  # duplicate indices: one of them wins, as in torch


@native_function(SOURCE)
def max_unpooling2d_forward_out_cpu(
    self: Tensor, indices: Tensor, output_size: Sequence[int], out: Tensor
) -> Tensor:
    self_, indices_, output = self, indices, out
    TORCH_CHECK(
        indices_.scalar_type() == ScalarType.Long,
        "elements in indices should be type int64 but got: ",
        indices_.scalar_type(),
    )
    TORCH_CHECK(
        len(output_size) == 2,
        "There should be exactly two elements (height, width) in output_size, but got ",
        len(output_size),
        " elements.",
    )
    oheight, owidth = output_size
    TORCH_CHECK(
        self_.dim() == 3 or self_.dim() == 4,
        "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with ",
        self_.dim(),
        " dimensions.",
    )
    TORCH_CHECK(
        list(self_.sizes()) == list(indices_.sizes()),
        f"Expected shape of indices to be same as that of the input tensor "
        f"({list(self_.sizes())}) but got indices tensor with shape: {list(indices_.sizes())}",
    )
    for i in range(1, self_.dim()):
        TORCH_CHECK(
            self_.size(i) > 0,
            "max_unpooling2d_forward_out_cpu(): Expected input to have non-zero size for "
            f"non-batch dimensions, but got {list(self_.sizes())} with dimension {i} being "
            "empty.",
        )
    x = self_.contiguous()
    idx = indices_.contiguous()
    output.resize_([*x.sizes()[:-2], oheight, owidth])
    output.zero_()
    if output.numel() != 0:
        # AT_DISPATCH_FLOATING_TYPES_AND2(BFloat16, Half, ..., "max_unpool2d", ...)
        TORCH_CHECK_NOT_IMPLEMENTED(
            isFloatingType(x.scalar_type()),
            f"\"max_unpool2d\" not implemented for '{x.scalar_type().name}'",
        )
        arr_x = np.asarray(x.numpy_view())
        planes = arr_x.reshape(-1, arr_x.shape[-2], arr_x.shape[-1])
        out_arr = output.numpy_view().reshape(-1, oheight, owidth)
        _max_unpool_kernel(
            out_arr, planes, np.asarray(idx.numpy_view()).reshape(planes.shape), oheight, owidth
        )
    return output


@native_function(SOURCE)
def max_unpooling2d_forward_cpu(
    self: Tensor, indices: Tensor, output_size: Sequence[int]
) -> Tensor:
    output = at.empty([0], dtype=self.scalar_type(), device=self.device())
    return max_unpooling2d_forward_out_cpu(self, indices, output_size, output)
