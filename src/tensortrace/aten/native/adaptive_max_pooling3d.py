"""adaptive_max_pool3d and its backward (structured).

Mirrors `aten/src/ATen/native/AdaptiveMaxPooling3d.cpp` (the meta functions' checks; values,
and int64 indices that are flat offsets t * H * W + h * W + w into each input volume) and the
loops of `cpu/AdaptiveMaxPoolKernel.cpp` (cpu_adaptive_max_pool3d): output cell (ot, oh, ow)
covers [floor(o * I / O), ceil((o + 1) * I / O)) along each dim, the windows of
adaptive_average_pooling.py; `val > maxval || isnan(val)` keeps the first maximum and the last
NaN. The backward adds each grad_output value at its index.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from tensortrace.aten.native.adaptive_average_pooling import _adaptive_bounds
from tensortrace.aten.native.registry import impl_function, meta_function
from tensortrace.aten.tensor_body import Tensor, expect_contiguous
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType, isFloatingType
from tensortrace.c10.tensor_options import TensorOptions
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/AdaptiveMaxPooling3d.cpp"
KERNEL = "aten/src/ATen/native/cpu/AdaptiveMaxPoolKernel.cpp"


def _volumes(t: Tensor) -> np.ndarray:
    arr = np.asarray(expect_contiguous(t).numpy_view())
    return arr.reshape(-1, *arr.shape[-3:])


def _sizes(t: Tensor) -> str:
    return "[" + ", ".join(str(s) for s in t.sizes()) + "]"


@meta_function("adaptive_max_pool3d", SOURCE)
def meta_adaptive_max_pool3d(
    it: TensorIteratorBase, input: Tensor, output_size: Sequence[int]
) -> None:
    ndim = input.dim()
    TORCH_CHECK(
        ndim in (4, 5), "adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: ", _sizes(input)
    )
    for i in range(1, ndim):
        TORCH_CHECK(
            input.size(i) > 0,
            "adaptive_max_pool3d(): Expected input to have non-zero size for non-batch "
            "dimensions, but input has sizes ",
            _sizes(input),
            " with dimension ",
            i,
            " being empty",
        )
    TORCH_CHECK(
        len(output_size) == 3,
        "adaptive_max_pool3d(): internal error: output_size.size() must be 3",
    )
    sizes = [*input.sizes()[:-3], *output_size]
    it.set_output_raw_strided(0, sizes, (), TensorOptions(input.scalar_type(), input.device()))
    it.set_output_raw_strided(1, sizes, (), TensorOptions(ScalarType.Long, input.device()))


@traced("kernel", "at::native::(anonymous)::cpu_adaptive_max_pool3d", KERNEL)
def _adaptive_max_pool3d_kernel(
    x: np.ndarray, out_sizes: Sequence[int]
) -> tuple[np.ndarray, np.ndarray]:
    n, *in_sizes = x.shape
    out = np.empty((n, *out_sizes), dtype=x.dtype)
    idx = np.empty((n, *out_sizes), dtype=np.int64)
    rows = np.arange(n)
    positions = np.arange(int(np.prod(in_sizes))).reshape(in_sizes)
    for o in itertools.product(*(range(size) for size in out_sizes)):
        at_o: tuple[Any, ...] = (slice(None), *o)
        window = tuple(_adaptive_bounds(o[i], out_sizes[i], in_sizes[i]) for i in range(3))
        flat = positions[window].ravel()
        vals = x[(slice(None), *window)].reshape(n, -1)
        best = np.argmax(vals, axis=1)  # the first maximum
        nan = np.isnan(vals)
        last_nan = nan.shape[1] - 1 - np.argmax(nan[:, ::-1], axis=1)
        best = np.where(nan.any(axis=1), last_nan, best)
        out[at_o] = vals[rows, best]
        idx[at_o] = flat[best]
    return out, idx


@impl_function("adaptive_max_pool3d_out_cpu", SOURCE)
def adaptive_max_pool3d_out_cpu(
    it: TensorIteratorBase,
    input: Tensor,
    output_size: Sequence[int],
    out: Tensor,
    indices: Tensor,
) -> None:
    # the kernel's AT_DISPATCH_FLOATING_TYPES_AND2(BFloat16, Half)
    TORCH_CHECK_NOT_IMPLEMENTED(
        isFloatingType(input.scalar_type()),
        '"adaptive_max_pool3d_cpu" not implemented for \'',
        input.scalar_type().name,
        "'",
    )
    if out.numel() == 0:
        return
    vals, idx = _adaptive_max_pool3d_kernel(_volumes(input), list(output_size))
    out.numpy_view()[...] = vals.reshape(list(out.sizes()))
    indices.numpy_view()[...] = idx.reshape(list(indices.sizes()))


@meta_function("adaptive_max_pool3d_backward", SOURCE)
def meta_adaptive_max_pool3d_backward(
    it: TensorIteratorBase, grad_output: Tensor, input: Tensor, indices: Tensor
) -> None:
    ndim = grad_output.dim()
    TORCH_CHECK(
        ndim in (4, 5),
        "adaptive_max_pooling3d_backward(): Expected 4D or 5D grad_output, but got: ",
        _sizes(grad_output),
    )
    for i in range(1, ndim):  # AdaptivePooling.h's adaptive_pool_empty_output_check
        TORCH_CHECK(
            grad_output.size(i) > 0,
            "adaptive_max_pool3d_backward(): Expected grad_output to have non-zero size for "
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


@traced("kernel", "at::native::(anonymous)::cpu_adaptive_max_pool3d_backward", KERNEL)
def _adaptive_max_pool3d_backward_kernel(
    go: np.ndarray, idx: np.ndarray, in_sizes: Sequence[int]
) -> np.ndarray:
    n = go.shape[0]
    grad = np.zeros((n, int(np.prod(in_sizes))), dtype=go.dtype)
    np.add.at(grad, (np.arange(n)[:, None], idx.reshape(n, -1)), go.reshape(n, -1))
    return grad.reshape(n, *in_sizes)


@impl_function("adaptive_max_pool3d_backward_out_cpu", SOURCE)
def adaptive_max_pool3d_backward_out_cpu(
    it: TensorIteratorBase,
    grad_output: Tensor,
    input: Tensor,
    indices: Tensor,
    grad_input: Tensor,
) -> None:
    grad_input.zero_()
    if grad_input.numel() == 0:
        return
    res = _adaptive_max_pool3d_backward_kernel(
        _volumes(grad_output), _volumes(indices), list(input.sizes()[-3:])
    )
    grad_input.numpy_view()[...] = res.reshape(list(grad_input.sizes()))
