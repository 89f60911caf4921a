"""adaptive_avg_pool3d, _adaptive_avg_pool3d and its backward.

Mirrors `aten/src/ATen/native/AdaptiveAveragePooling3d.cpp`: the composite
adaptive_avg_pool3d takes the mean over the last three dims for an output of 1x1x1 and calls
_adaptive_avg_pool3d otherwise, whose CPU template checks the input and averages, for each
output cell, the input cells [floor(o * in / out), ceil((o + 1) * in / out)) of each of the
three dims (NumPy does the planes at once). The backward spreads each output gradient evenly
over its cells.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.adaptive_average_pooling import _adaptive_bounds
from tensortrace.aten.native.pooling import _from_numpy
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import isFloatingType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/AdaptiveAveragePooling3d.cpp"


def _volumes(t: Tensor) -> np.ndarray:
    arr = np.asarray(t.contiguous().numpy_view())
    return arr.reshape(-1, *arr.shape[-3:])


def _cells(out_shape: Sequence[int]) -> list[tuple[int, int, int]]:
    d_out, h_out, w_out = out_shape
    return [(d, h, w) for d in range(d_out) for h in range(h_out) for w in range(w_out)]


@native_function(SOURCE)
def adaptive_avg_pool3d_symint(self: Tensor, output_size: Sequence[int]) -> Tensor:
    TORCH_CHECK(len(list(output_size)) == 3, "adaptive_avg_pool3d: output_size must be 3")
    TORCH_CHECK(
        output_size[0] >= 0 and output_size[1] >= 0 and output_size[2] >= 0,
        "adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 ",
        "but received {",
        output_size[0],
        ", ",
        output_size[1],
        ",",
        output_size[2],
        "}",
    )
    if list(output_size) == [1, 1, 1]:
        # in this case, adaptive pooling is just computing mean over hw dimensions
        return self.mean([-1, -2, -3], True)
    return at._adaptive_avg_pool3d(self, output_size)


@traced("kernel", "at::native::(anonymous)::adaptive_avg_pool3d_out_frame", SOURCE)
def _adaptive_avg_pool3d_kernel(x: np.ndarray, out_shape: Sequence[int]) -> np.ndarray:
    n = x.shape[0]
    out = np.empty((n, *out_shape), dtype=x.dtype)
    for d, h, w in _cells(out_shape):
        ds = _adaptive_bounds(d, out_shape[0], x.shape[1])
        hs = _adaptive_bounds(h, out_shape[1], x.shape[2])
        ws = _adaptive_bounds(w, out_shape[2], x.shape[3])
        out[:, d, h, w] = x[:, ds, hs, ws].mean(axis=(1, 2, 3), dtype=x.dtype)
    return out


@native_function(SOURCE)
def adaptive_avg_pool3d_cpu(self: Tensor, output_size: Sequence[int]) -> Tensor:
    TORCH_CHECK(len(list(output_size)) == 3, "adaptive_avg_pool3d: output_size must be 3")
    for i in range(1, self.dim()):
        TORCH_CHECK(
            self.size(i) > 0,
            "adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch "
            "dimensions, but input has sizes ",
            list(self.sizes()),
            " with dimension ",
            i,
            " being empty",
        )
    TORCH_CHECK(
        self.dim() in (4, 5),
        "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got ",
        list(self.sizes()),
    )
    # AT_DISPATCH_FLOATING_TYPES_AND2(BFloat16, Half, ..., "adaptive_avg_pool3d_cpu", ...)
    TORCH_CHECK_NOT_IMPLEMENTED(
        isFloatingType(self.scalar_type()),
        f"\"adaptive_avg_pool3d_cpu\" not implemented for '{self.scalar_type().name}'",
    )
    out_shape = [*self.sizes()[:-3], *output_size]
    if self.numel() == 0:
        return at.empty(out_shape, dtype=self.scalar_type(), device=self.device())
    out = _adaptive_avg_pool3d_kernel(_volumes(self), list(output_size))
    return _from_numpy(out, out_shape, self.scalar_type(), self.device())


@native_function(SOURCE)
def adaptive_avg_pool3d_backward_cpu(grad_output: Tensor, self: Tensor) -> Tensor:
    go = _volumes(grad_output)
    in_shape = list(self.sizes())[-3:]
    out_shape = list(go.shape[1:])
    grad = np.zeros((go.shape[0], *in_shape), dtype=go.dtype)
    for d, h, w in _cells(out_shape):
        ds = _adaptive_bounds(d, out_shape[0], in_shape[0])
        hs = _adaptive_bounds(h, out_shape[1], in_shape[1])
        ws = _adaptive_bounds(w, out_shape[2], in_shape[2])
        count = (ds.stop - ds.start) * (hs.stop - hs.start) * (ws.stop - ws.start)
        grad[:, ds, hs, ws] += (go[:, d, h, w] / go.dtype.type(count))[:, None, None, None]
    return _from_numpy(grad, list(self.sizes()), grad_output.scalar_type(), self.device())
