"""adaptive_avg_pool2d, _adaptive_avg_pool2d and its backward.

Mirrors `aten/src/ATen/native/AdaptiveAveragePooling.cpp` (an output of 1x1 is a mean over the
last two dims, as torch does) and the loops of `cpu/AdaptiveAvgPoolKernel.cpp`: output cell o of
a dim covers input [floor(o * in / out), ceil((o + 1) * in / out)), each averaged over batch and
channels at once in NumPy.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.pooling import _from_numpy, _planes
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.trace import traced

ADAPTIVE = "aten/src/ATen/native/AdaptiveAveragePooling.cpp"


def _adaptive_bounds(o: int, out_size: int, in_size: int) -> slice:
    return slice((o * in_size) // out_size, -((-(o + 1) * in_size) // out_size))


@native_function(ADAPTIVE, name="adaptive_avg_pool2d_symint")
def adaptive_avg_pool2d_symint(self: Tensor, output_size: Sequence[int]) -> Tensor:
    TORCH_CHECK(len(list(output_size)) == 2, "adaptive_avg_pool2d: output_size must be 2")
    TORCH_CHECK(
        output_size[0] >= 0 and output_size[1] >= 0,
        "adaptive_avg_pool2d: elements "
        "of output_size must be greater than or equal to 0 but received {",
        output_size[0],
        ", ",
        output_size[1],
        "}",
    )
    if list(output_size) == [1, 1]:
        return self.mean([-1, -2], True)
    return at._adaptive_avg_pool2d(self, output_size)


@traced(
    "kernel",
    "at::native::(anonymous)::cpu_adaptive_avg_pool2d",
    "aten/src/ATen/native/cpu/AdaptiveAvgPoolKernel.cpp",
    legacy="cpu_adaptive_avg_pool2d",
)
def _adaptive_kernel(x: np.ndarray, oh: int, ow: int) -> np.ndarray:
    n, h, w = x.shape
    out = np.empty((n, oh, ow), dtype=x.dtype)
    for i in range(oh):
        rs = _adaptive_bounds(i, oh, h)
        for j in range(ow):
            cs = _adaptive_bounds(j, ow, w)
            out[:, i, j] = x[:, rs, cs].mean(axis=(1, 2), dtype=x.dtype)
    return out


@native_function(ADAPTIVE, name="adaptive_avg_pool2d_cpu")
def adaptive_avg_pool2d_cpu(self: Tensor, output_size: Sequence[int]) -> Tensor:
    TORCH_CHECK(len(list(output_size)) == 2, "adaptive_avg_pool2d: output_size must be 2")
    ndim = self.dim()
    TORCH_CHECK(
        ndim in (3, 4),
        "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got ",
        list(self.sizes()),
    )
    for i in range(1, ndim):
        TORCH_CHECK(
            self.size(i) > 0,
            "adaptive_avg_pool2d(): Expected input to have non-zero "
            "size for non-batch dimensions, but input has sizes ",
            list(self.sizes()),
            " with dimension ",
            i,
            " being empty",
        )
    oh, ow = output_size
    if self.is_meta():  # Note [A meta tensor's kernel is no call]
        return self.new_empty([*self.sizes()[:-2], oh, ow])
    out = _adaptive_kernel(_planes(self), oh, ow)
    return _from_numpy(out, [*self.sizes()[:-2], oh, ow], self.scalar_type(), self)


@native_function(ADAPTIVE, name="adaptive_avg_pool2d_backward_cpu")
def adaptive_avg_pool2d_backward_cpu(grad_output: Tensor, self: Tensor) -> Tensor:
    if grad_output.is_meta():  # Note [A meta tensor's kernel is no call]
        return grad_output.new_empty(list(self.sizes()))
    go = _planes(grad_output)
    oh, ow = go.shape[1], go.shape[2]
    h, w = self.size(-2), self.size(-1)
    grad = np.zeros((go.shape[0], h, w), dtype=go.dtype)
    for i in range(oh):
        rs = _adaptive_bounds(i, oh, h)
        for j in range(ow):
            cs = _adaptive_bounds(j, ow, w)
            count = (rs.stop - rs.start) * (cs.stop - cs.start)
            grad[:, rs, cs] += (go[:, i, j] / go.dtype.type(count))[:, None, None]
    return _from_numpy(grad, list(self.sizes()), grad_output.scalar_type(), grad_output)
