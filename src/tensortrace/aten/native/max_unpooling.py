"""max_unpool2d / max_unpool3d: the inverses of max_pool2d / 3d, each value written back at its
argmax.

Mirrors `aten/src/ATen/native/MaxUnpooling.cpp` (max_unpooling2d_forward_out_cpu: the checks,
the output resized and zeroed) and the loop of `aten/src/ATen/native/cpu/MaxUnpoolKernel.cpp`
(cpu_max_unpool: for each plane, output[plane][indices[i]] = input[i], an index outside the
plane an error; max_unpooling3d_shape_check for the 3-D op). F.max_unpool1d runs the 2-D op on
an unsqueezed input. Their derivatives gather the gradient at the indices
(max_pool_double_backward).
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
    out: np.ndarray, x: np.ndarray, idx: np.ndarray, out_sizes: Sequence[int]
) -> None:
    """out, x, idx as (planes, ...): out[p, idx[p, i]] = x[p, i]."""
    size = int(np.prod(out_sizes))
    planes = x.shape[0]
    x, idx = x.reshape(planes, -1), idx.reshape(planes, -1)
    bad = (idx < 0) | (idx >= size)
    if bad.any():  # the loop goes on, and reports the last invalid index it met
        TORCH_CHECK(
            False,
            f"Found an invalid max index: {int(idx[bad][-1])} (output volumes are of size "
            f"{'x'.join(str(o) for o in out_sizes)})",
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
            out_arr, planes, np.asarray(idx.numpy_view()).reshape(planes.shape), [oheight, owidth]
        )
    return output


@native_function(SOURCE)
def max_unpooling2d_forward_cpu(
    self: Tensor, indices: Tensor, output_size: Sequence[int]
) -> Tensor:
    output = at.empty([0], dtype=self.scalar_type(), device=self.device())
    return max_unpooling2d_forward_out_cpu(self, indices, output_size, output)


def _max_unpooling3d_shape_check(
    input: Tensor,
    indices: Tensor,
    output_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    fn_name: str,
) -> None:
    TORCH_CHECK(
        indices.scalar_type() == ScalarType.Long, "elements in indices should be type int64"
    )
    TORCH_CHECK(
        input.dim() in (4, 5),
        "Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with ",
        input.dim(),
        " dimensions.",
    )
    for name, values in (("output_size", output_size), ("stride", stride), ("padding", padding)):
        TORCH_CHECK(
            len(values) == 3,
            "There should be exactly three elements (depth, height, width) in ",
            name,
            ", but got" + (" " if name == "output_size" else ": "),
            len(values),
            " elements.",
        )
    TORCH_CHECK(
        list(input.sizes()) == list(indices.sizes()),
        f"Expected shape of indices to be same as that of the input tensor "
        f"({list(input.sizes())}) but got indices tensor with shape: {list(indices.sizes())}",
    )
    for i in range(1, input.dim()):
        TORCH_CHECK(
            input.size(i) > 0,
            fn_name,
            ": Expected input to have non-zero size for non-batch dimensions, but got ",
            list(input.sizes()),
            " with dimension ",
            i,
            " being empty.",
        )
    TORCH_CHECK(
        all(s > 0 for s in stride),
        "strides should be greater than zero, but got stride: ",
        list(stride),
    )


@native_function(SOURCE)
def max_unpooling3d_forward_out_cpu(
    self: Tensor,
    indices: Tensor,
    output_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    out: Tensor,
) -> Tensor:
    _max_unpooling3d_shape_check(
        self, indices, output_size, stride, padding, "max_unpooling3d_forward_out_cpu()"
    )
    x = self.contiguous()
    out.resize_([*x.sizes()[:-3], *output_size])
    out.zero_()
    if out.numel() != 0:
        TORCH_CHECK_NOT_IMPLEMENTED(
            isFloatingType(x.scalar_type()),
            f"\"max_unpool3d\" not implemented for '{x.scalar_type().name}'",
        )
        volumes = np.asarray(x.numpy_view()).reshape(-1, *x.sizes()[-3:])
        out_arr = out.numpy_view().reshape(-1, *output_size)
        idx = np.asarray(indices.contiguous().numpy_view()).reshape(volumes.shape)
        _max_unpool_kernel(out_arr, volumes, idx, list(output_size))
    return out


@native_function(SOURCE)
def max_unpooling3d_forward_cpu(
    self: Tensor,
    indices: Tensor,
    output_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
) -> Tensor:
    output = at.empty([0], dtype=self.scalar_type(), device=self.device())
    return max_unpooling3d_forward_out_cpu(self, indices, output_size, stride, padding, output)
