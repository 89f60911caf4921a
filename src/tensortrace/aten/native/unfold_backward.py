"""Tensor.unfold (the windows of a dim as a new last dim: a view) and unfold_backward (the
overlap-add that sums each window back into place), which istft uses.

Mirrors `unfold` of `aten/src/ATen/native/TensorShape.cpp` (the window count
(size - window) / step + 1 in place of the dim, the stride times step, the window's own stride
appended; a 0-d tensor unfolds as if it had one element) and `aten/src/ATen/native/
UnfoldBackward.cpp`: zeros of the input's sizes, then a plain copy into its unfold view when the
windows do not overlap (step >= size), otherwise unfold_backward_stub accumulates them
(cpu/UnfoldBackwardKernel.cpp: the kernel below).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.dispatch_stub import DECLARE_DISPATCH, REGISTER_DISPATCH
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.trace import traced

SHAPE = "aten/src/ATen/native/TensorShape.cpp"
UNFOLD_BACKWARD = "aten/src/ATen/native/UnfoldBackward.cpp"

unfold_backward_stub = DECLARE_DISPATCH(
    "unfold_backward_stub", "aten/src/ATen/native/UnfoldBackward.h"
)


@native_function(SHAPE)
def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    ndim = self.dim()
    d = maybe_wrap_dim(dimension, ndim, wrap_scalar=True)
    sizes, strides = list(self.sizes()), list(self.strides())
    max_size = 1 if ndim == 0 else sizes[d]
    TORCH_CHECK(
        size <= max_size,
        "maximum size for tensor at dimension ",
        d,
        " is ",
        max_size,
        " but size is ",
        size,
    )
    TORCH_CHECK(step > 0, "step is ", step, " but must be > 0")
    sizes.append(size)
    strides.append(1 if ndim == 0 else strides[d])
    if d < ndim:  # not a 0-d tensor
        sizes[d] = (sizes[d] - size) // step + 1
        strides[d] *= step
    return self.as_strided(sizes, strides)  # type: ignore[no-any-return]


@native_function(UNFOLD_BACKWARD)
def unfold_backward(
    grad_in: Tensor, input_sizes: Sequence[int], dim: int, size: int, step: int
) -> Tensor:
    grad_input = at.zeros(list(input_sizes), dtype=grad_in.scalar_type(), device=grad_in.device())
    if step >= size:
        gi_unfolded = grad_input.unfold(dim, size, step)
        gi_unfolded.copy_(grad_in)
        return grad_input
    unfold_backward_stub(grad_in.device().type_, grad_input, grad_in, dim, size, step)
    return grad_input


def unfold_backward_cpu_kernel(
    grad_in: Tensor, grad: Tensor, dim: int, size: int, step: int
) -> None:
    """grad_in[..., i * step + k, ...] += grad[..., i, ..., k] over every window i (only
    overlapping windows get here: step < size, so grad_in has at least one dim)."""
    dim = maybe_wrap_dim(dim, grad_in.dim())
    out = grad_in.numpy_view()
    g = np.asarray(grad.numpy_view())
    for i in range(g.shape[dim]):
        window = np.moveaxis(np.take(g, i, axis=dim), -1, dim)
        index = [slice(None)] * out.ndim
        index[dim] = slice(i * step, i * step + size)
        out[tuple(index)] += window


REGISTER_DISPATCH(
    unfold_backward_stub,
    traced(
        "kernel",
        "at::native::unfold_backward_cpu_kernel",
        "aten/src/ATen/native/cpu/UnfoldBackwardKernel.cpp",
        legacy="unfold_backward_cpu_kernel",
    )(unfold_backward_cpu_kernel),
)
