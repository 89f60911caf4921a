"""adaptive_max_pool2d and its backward (structured).

Mirrors `aten/src/ATen/native/AdaptiveMaxPooling2d.cpp` (the meta functions' checks and
outputs: values, and int64 indices that are flat offsets h * W + w into each input plane) and
the loops of `cpu/AdaptiveMaxPoolKernel.cpp`: output cell (oh, ow) covers input rows
[floor(oh * H / OH), ceil((oh + 1) * H / OH)) and the columns likewise (the windows of
adaptive_average_pooling.py); within it `val > maxval || isnan(val)` keeps the first maximum,
and the last NaN. The backward adds each grad_output value at its index.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten.native.adaptive_average_pooling import _adaptive_bounds
from tensortrace.aten.native.registry import impl_function, meta_function
from tensortrace.aten.tensor_body import Tensor, expect_contiguous
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType, isFloatingType
from tensortrace.c10.tensor_options import TensorOptions
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/AdaptiveMaxPooling2d.cpp"
KERNEL = "aten/src/ATen/native/cpu/AdaptiveMaxPoolKernel.cpp"


def _planes(t: Tensor) -> np.ndarray:
    arr = np.asarray(expect_contiguous(t).numpy_view())
    return arr.reshape(-1, arr.shape[-2], arr.shape[-1])


def _sizes(t: Tensor) -> str:
    return "[" + ", ".join(str(s) for s in t.sizes()) + "]"


@meta_function("adaptive_max_pool2d", SOURCE)
def meta_adaptive_max_pool2d(
    it: TensorIteratorBase, input: Tensor, output_size: Sequence[int]
) -> None:
    ndim = input.dim()
    TORCH_CHECK(
        ndim in (3, 4), "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: ", _sizes(input)
    )
    for i in range(1, ndim):
        TORCH_CHECK(
            input.size(i) > 0,
            "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch "
            "dimensions, but input has sizes ",
            _sizes(input),
            " with dimension ",
            i,
            " being empty",
        )
    TORCH_CHECK(
        len(output_size) == 2,
        "adaptive_max_pool2d(): internal error: output_size.size() must be 2",
    )
    sizes = [*input.sizes()[:-2], output_size[0], output_size[1]]
    it.set_output_raw_strided(0, sizes, (), TensorOptions(input.scalar_type(), input.device()))
    # indices will contain i,j locations for each output point
    it.set_output_raw_strided(1, sizes, (), TensorOptions(ScalarType.Long, input.device()))


@traced("kernel", "at::native::(anonymous)::cpu_adaptive_max_pool2d", KERNEL)
def _adaptive_max_pool2d_kernel(x: np.ndarray, oh: int, ow: int) -> tuple[np.ndarray, np.ndarray]:
    n, h, w = x.shape
    out = np.empty((n, oh, ow), dtype=x.dtype)
    idx = np.empty((n, oh, ow), dtype=np.int64)
    rows_of = np.arange(n)
    for i in range(oh):
        rs = _adaptive_bounds(i, oh, h)
        for j in range(ow):
            cs = _adaptive_bounds(j, ow, w)
            flat = (
                np.arange(rs.start, rs.stop)[:, None] * w + np.arange(cs.start, cs.stop)
            ).ravel()
            vals = x[:, rs, cs].reshape(n, -1)
            best = np.argmax(vals, axis=1)  # the first maximum
            nan = np.isnan(vals)
            last_nan = nan.shape[1] - 1 - np.argmax(nan[:, ::-1], axis=1)
            best = np.where(nan.any(axis=1), last_nan, best)
            out[:, i, j] = vals[rows_of, best]
            idx[:, i, j] = flat[best]
    return out, idx


@impl_function("adaptive_max_pool2d_out_cpu", SOURCE)
def adaptive_max_pool2d_out_cpu(
    it: TensorIteratorBase,
    input: Tensor,
    output_size: Sequence[int],
    out: Tensor,
    indices: Tensor,
) -> None:
    # the kernel's AT_DISPATCH_FLOATING_TYPES_AND2(BFloat16, Half)
    TORCH_CHECK_NOT_IMPLEMENTED(
        isFloatingType(input.scalar_type()),
        '"adaptive_max_pool2d" not implemented for \'',
        input.scalar_type().name,
        "'",
    )
    if out.numel() == 0:
        return
    vals, idx = _adaptive_max_pool2d_kernel(_planes(input), output_size[0], output_size[1])
    out.numpy_view()[...] = vals.reshape(list(out.sizes()))
    indices.numpy_view()[...] = idx.reshape(list(indices.sizes()))


@meta_function("adaptive_max_pool2d_backward", SOURCE)
def meta_adaptive_max_pool2d_backward(
    it: TensorIteratorBase, grad_output: Tensor, input: Tensor, indices: Tensor
) -> None:
    ndim = grad_output.dim()
    TORCH_CHECK(
        ndim in (3, 4),
        "adaptive_max_pooling2d_backward(): Expected 3D or 4D grad_output, but got: ",
        _sizes(grad_output),
    )
    for i in range(1, ndim):  # AdaptivePooling.h's adaptive_pool_empty_output_check
        TORCH_CHECK(
            grad_output.size(i) > 0,
            "adaptive_max_pool2d_backward(): Expected grad_output to have non-zero size for "
            "non-batch dimensions, but grad_output has sizes ",
            _sizes(grad_output),
            " with dimension ",
            i,
            " being empty",
        )
    TORCH_CHECK(
        input.scalar_type() == grad_output.scalar_type(),
        "expected dtype ",
        input.dtype(),
        " for `grad_output` but got dtype ",
        grad_output.dtype(),
    )
    it.set_output_raw_strided(
        0, list(input.sizes()), (), TensorOptions(input.scalar_type(), input.device())
    )


@traced("kernel", "at::native::(anonymous)::cpu_adaptive_max_pool2d_backward", KERNEL)
def _adaptive_max_pool2d_backward_kernel(
    go: np.ndarray, idx: np.ndarray, h: int, w: int
) -> np.ndarray:
    n = go.shape[0]
    grad = np.zeros((n, h * w), dtype=go.dtype)
    planes = np.broadcast_to(np.arange(n)[:, None], (n, idx[0].size))
    np.add.at(grad, (planes.ravel(), idx.reshape(n, -1).ravel()), go.reshape(-1))
    return grad.reshape(n, h, w)


@impl_function("adaptive_max_pool2d_backward_out_cpu", SOURCE)
def adaptive_max_pool2d_backward_out_cpu(
    it: TensorIteratorBase,
    grad_output: Tensor,
    input: Tensor,
    indices: Tensor,
    grad_input: Tensor,
) -> None:
    grad_input.zero_()
    if grad_input.numel() == 0:
        return
    go = _planes(grad_output)
    idx = _planes(indices)
    res = _adaptive_max_pool2d_backward_kernel(go, idx, input.size(-2), input.size(-1))
    grad_input.numpy_view()[...] = res.reshape(list(grad_input.sizes()))
