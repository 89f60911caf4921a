"""upsample_bicubic2d: the `.vec` overload, and the structured forward and backward kernels.

Mirrors `aten/src/ATen/native/UpSampleBicubic2d.cpp` (the meta functions' checks, as
upsample_linear.py's bilinear ones; the backward's upsample_bicubic2d_backward_out_frame) and
the forward of `cpu/UpSampleKernel.cpp` (cpu_upsample_generic with HelperInterpCubic): each
output reads the 4 x 4 input cells around its source position (area_pixel_compute_source_index
with cubic=true, guard_index_and_lambda), indices clamped to the input, weighted by the cubic
convolution coefficients with A = -0.75 (UpSample.h's get_cubic_upsample_coefficients). The
backward adds each grad_output value, times the same weights, into those cells.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.native.upsample import (
    check_kernel_dtype,
    compute_output_size,
    cubic_indices_weights,
    get_scale_value,
    opmath_dtype,
    upsample_backward_meta,
    upsample_meta,
)
from tensortrace.aten.native.upsample_nearest import _planes
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/UpSampleBicubic2d.cpp"
KERNEL = "aten/src/ATen/native/cpu/UpSampleKernel.cpp"

CubicPlan = Sequence[tuple[np.ndarray, np.ndarray]]  # per dim: (out, 4) indices and weights


def _plan(
    in_sizes: Sequence[int],
    out_sizes: Sequence[int],
    align_corners: bool,
    scales: Sequence[float | None],
    opmath: type[np.floating],
) -> list[tuple[np.ndarray, np.ndarray]]:
    return [
        cubic_indices_weights(i, o, align_corners, s, opmath)
        for i, o, s in zip(in_sizes, out_sizes, scales, strict=True)
    ]


@traced("kernel", "at::native::(anonymous)::cpu_upsample_generic", KERNEL)
def _upsample_bicubic_kernel(
    x: np.ndarray, plan: CubicPlan, opmath: type[np.floating]
) -> np.ndarray:
    out = x.astype(opmath, copy=False)
    for d in reversed(range(len(plan))):  # the innermost dim first, as Interpolate<n>::eval
        idx, w = plan[d]
        shape = [1] * out.ndim
        shape[d + 1] = -1
        acc = np.take(out, idx[:, 0], axis=d + 1) * w[:, 0].reshape(shape)
        for j in range(1, 4):
            acc = acc + np.take(out, idx[:, j], axis=d + 1) * w[:, j].reshape(shape)
        out = acc
    return np.asarray(out).astype(x.dtype)


@traced("kernel", "at::native::(anonymous)::upsample_bicubic2d_backward_out_frame", SOURCE)
def _upsample_bicubic_backward_kernel(
    go: np.ndarray, in_shape: Sequence[int], plan: CubicPlan, opmath: type[np.floating]
) -> np.ndarray:
    planes = go.shape[0]
    (iy, wy), (ix, wx) = plan
    grad = np.zeros((planes, in_shape[0] * in_shape[1]), dtype=opmath)
    g = go.reshape(planes, -1).astype(opmath)
    offsets, weights = [], []
    for j, i in itertools.product(range(4), range(4)):  # y tap outer, as the frame's loops
        offsets.append((iy[:, j][:, None] * in_shape[1] + ix[:, i][None, :]).reshape(-1))
        weights.append(np.multiply.outer(wy[:, j], wx[:, i]).astype(opmath).reshape(-1))
    flat = np.stack(offsets, axis=-1).reshape(-1)
    contrib = (np.stack(weights, axis=-1)[None] * g[:, :, None]).reshape(planes, -1)
    np.add.at(grad.T, flat, contrib.T)
    return grad.astype(go.dtype).reshape(planes, *in_shape)


@native_function(SOURCE, name="upsample_bicubic2d")
def upsample_bicubic2d_vec(
    input: Tensor,
    output_size: Sequence[int] | None,
    align_corners: bool,
    scale_factors: Sequence[float] | None,
) -> Tensor:
    osize = compute_output_size(input.sizes(), output_size, scale_factors)
    scale_h = get_scale_value(scale_factors, 0)
    scale_w = get_scale_value(scale_factors, 1)
    return at.upsample_bicubic2d(input, osize, align_corners, scale_h, scale_w)


@meta_function("upsample_bicubic2d", SOURCE)
def meta_upsample_bicubic2d(
    it: TensorIteratorBase,
    self: Tensor,
    output_size: Sequence[int],
    align_corners: bool,
    scales_h: float | None,
    scales_w: float | None,
) -> None:
    upsample_meta(it, self, output_size, 2)


@impl_function("upsample_bicubic2d_out_cpu", SOURCE)
def upsample_bicubic2d_out_cpu(
    it: TensorIteratorBase,
    self: Tensor,
    output_size: Sequence[int],
    align_corners: bool,
    scales_h: float | None,
    scales_w: float | None,
    out: Tensor,
) -> None:
    check_kernel_dtype(self, "compute_indices_weights_cubic", allow_byte=False)
    if out.numel() == 0:
        return
    x = _planes(self)
    opmath = opmath_dtype(x.dtype)
    plan = _plan(self.sizes()[-2:], out.sizes()[-2:], align_corners, [scales_h, scales_w], opmath)
    res = _upsample_bicubic_kernel(x, plan, opmath)
    out.numpy_view()[...] = res.reshape(list(out.sizes()))


@meta_function("upsample_bicubic2d_backward", SOURCE)
def meta_upsample_bicubic2d_backward(
    it: TensorIteratorBase,
    grad_output: Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    align_corners: bool,
    scales_h: float | None,
    scales_w: float | None,
) -> None:
    upsample_backward_meta(it, grad_output, output_size, input_size, 2)


@impl_function("upsample_bicubic2d_backward_out_cpu", SOURCE)
def upsample_bicubic2d_backward_out_cpu(
    it: TensorIteratorBase,
    grad_output: Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    align_corners: bool,
    scales_h: float | None,
    scales_w: float | None,
    grad_input: Tensor,
) -> None:
    check_kernel_dtype(grad_output, "upsample_bicubic2d_backward_out_frame", allow_byte=False)
    grad_input.zero_()
    if grad_input.numel() == 0:
        return
    go = _planes(grad_output)
    opmath = opmath_dtype(go.dtype)
    in_sizes = list(input_size[-2:])
    plan = _plan(in_sizes, output_size, align_corners, [scales_h, scales_w], opmath)
    res = _upsample_bicubic_backward_kernel(go, in_sizes, plan, opmath)
    grad_input.numpy_view()[...] = res.reshape(list(grad_input.sizes()))
