"""upsample_linear1d / upsample_bilinear2d / upsample_trilinear3d: the `.vec` overloads, and the
structured forward and backward kernels.

Mirrors `aten/src/ATen/native/UpSampleLinear1d.cpp`, `UpSampleBilinear2d.cpp` and
`UpSampleTrilinear3d.cpp` (the same
shape as upsample_nearest.py): each output index reads the two input indices around its source
position (align_corners maps the corner pixels' centers onto each other, else the areas scale,
Note [area_pixel_compute_scale]) with weights lambda0 / lambda1; the backward spreads
grad_output over the same cells with the same weights.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.cpu.upsample_kernel import (
    upsample_linear_backward_kernel,
    upsample_linear_kernel,
)
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.native.upsample import (
    check_kernel_dtype,
    compute_output_size,
    get_scale_value,
    linear_indices_weights,
    opmath_dtype,
    upsample_backward_meta,
    upsample_meta,
)
from tensortrace.aten.native.upsample_nearest import _planes
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase

LINEAR1D = "aten/src/ATen/native/UpSampleLinear1d.cpp"
BILINEAR2D = "aten/src/ATen/native/UpSampleBilinear2d.cpp"
TRILINEAR3D = "aten/src/ATen/native/UpSampleTrilinear3d.cpp"


def _plan(
    in_sizes: Sequence[int],
    out_sizes: Sequence[int],
    align_corners: bool,
    scales: Sequence[float | None],
    opmath: type[np.floating],
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    return [
        linear_indices_weights(i, o, align_corners, s, opmath)
        for i, o, s in zip(in_sizes, out_sizes, scales, strict=True)
    ]


def _forward(
    self: Tensor, align_corners: bool, scales: Sequence[float | None], out: Tensor, name: str
) -> None:
    check_kernel_dtype(self, name, allow_byte=len(scales) == 2)
    if out.numel() == 0:
        return
    x = _planes(self)
    opmath = opmath_dtype(x.dtype)
    spatial = len(scales)
    plan = _plan(self.sizes()[-spatial:], out.sizes()[-spatial:], align_corners, scales, opmath)
    res = upsample_linear_kernel(x, plan, opmath)
    out.numpy_view()[...] = res.reshape(list(out.sizes()))


def _backward(
    grad_output: Tensor,
    align_corners: bool,
    scales: Sequence[float | None],
    grad_input: Tensor,
    name: str,
) -> None:
    check_kernel_dtype(grad_output, name, allow_byte=False)
    grad_input.zero_()
    if grad_input.numel() == 0:
        return
    go = _planes(grad_output)
    opmath = opmath_dtype(go.dtype)
    spatial = len(scales)
    in_sizes = list(grad_input.sizes()[-spatial:])
    plan = _plan(in_sizes, grad_output.sizes()[-spatial:], align_corners, scales, opmath)
    res = upsample_linear_backward_kernel(go, in_sizes, plan, opmath)
    grad_input.numpy_view()[...] = res.reshape(list(grad_input.sizes()))


# ---- UpSampleLinear1d.cpp ---------------------------------------------------------------------
@native_function(LINEAR1D, name="upsample_linear1d")
def upsample_linear1d_vec(
    input: Tensor,
    output_size: Sequence[int] | None,
    align_corners: bool,
    scale_factors: Sequence[float] | None,
) -> Tensor:
    osize = compute_output_size(input.sizes(), output_size, scale_factors)
    scale_w = get_scale_value(scale_factors, 0)
    return at.upsample_linear1d(input, osize, align_corners, scales=scale_w)


@meta_function("upsample_linear1d", LINEAR1D)
def meta_upsample_linear1d(
    it: TensorIteratorBase,
    self: Tensor,
    output_size: Sequence[int],
    align_corners: bool,
    scales: float | None,
) -> None:
    upsample_meta(it, self, output_size, 1)


@impl_function("upsample_linear1d_out_cpu", LINEAR1D)
def upsample_linear1d_out_cpu(
    it: TensorIteratorBase,
    self: Tensor,
    output_size: Sequence[int],
    align_corners: bool,
    scales: float | None,
    out: Tensor,
) -> None:
    _forward(self, align_corners, [scales], out, "compute_indices_weights_linear")


@meta_function("upsample_linear1d_backward", LINEAR1D)
def meta_upsample_linear1d_backward(
    it: TensorIteratorBase,
    grad_output: Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    align_corners: bool,
    scales: float | None,
) -> None:
    upsample_backward_meta(it, grad_output, output_size, input_size, 1)


@impl_function("upsample_linear1d_backward_out_cpu", LINEAR1D)
def upsample_linear1d_backward_out_cpu(
    it: TensorIteratorBase,
    grad_output: Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    align_corners: bool,
    scales: float | None,
    grad_input: Tensor,
) -> None:
    _backward(grad_output, align_corners, [scales], grad_input, "upsample_linear1d_backward")


# ---- UpSampleBilinear2d.cpp -------------------------------------------------------------------
@native_function(BILINEAR2D, name="upsample_bilinear2d")
def upsample_bilinear2d_vec(
    input: Tensor,
    output_size: Sequence[int] | None,
    align_corners: bool,
    scale_factors: Sequence[float] | None,
) -> Tensor:
    osize = compute_output_size(input.sizes(), output_size, scale_factors)
    scale_h = get_scale_value(scale_factors, 0)
    scale_w = get_scale_value(scale_factors, 1)
    return at.upsample_bilinear2d(input, osize, align_corners, scale_h, scale_w)


@meta_function("upsample_bilinear2d", BILINEAR2D)
def meta_upsample_bilinear2d(
    it: TensorIteratorBase,
    self: Tensor,
    output_size: Sequence[int],
    align_corners: bool,
    scales_h: float | None,
    scales_w: float | None,
) -> None:
    upsample_meta(it, self, output_size, 2)


@impl_function("upsample_bilinear2d_out_cpu", BILINEAR2D)
def upsample_bilinear2d_out_cpu(
    it: TensorIteratorBase,
    self: Tensor,
    output_size: Sequence[int],
    align_corners: bool,
    scales_h: float | None,
    scales_w: float | None,
    out: Tensor,
) -> None:
    _forward(self, align_corners, [scales_h, scales_w], out, "upsample_bilinear2d_channels_last")


@meta_function("upsample_bilinear2d_backward", BILINEAR2D)
def meta_upsample_bilinear2d_backward(
    it: TensorIteratorBase,
    grad_output: Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    align_corners: bool,
    scales_h: float | None,
    scales_w: float | None,
) -> None:
    upsample_backward_meta(it, grad_output, output_size, input_size, 2)


@impl_function("upsample_bilinear2d_backward_out_cpu", BILINEAR2D)
def upsample_bilinear2d_backward_out_cpu(
    it: TensorIteratorBase,
    grad_output: Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    align_corners: bool,
    scales_h: float | None,
    scales_w: float | None,
    grad_input: Tensor,
) -> None:
    _backward(
        grad_output, align_corners, [scales_h, scales_w], grad_input, "upsample_bilinear2d_backward"
    )


# ---- UpSampleTrilinear3d.cpp ------------------------------------------------------------------
@native_function(TRILINEAR3D, name="upsample_trilinear3d")
def upsample_trilinear3d_vec(
    input: Tensor,
    output_size: Sequence[int] | None,
    align_corners: bool,
    scale_factors: Sequence[float] | None,
) -> Tensor:
    osize = compute_output_size(input.sizes(), output_size, scale_factors)
    scale_d, scale_h, scale_w = (get_scale_value(scale_factors, i) for i in range(3))
    return at.upsample_trilinear3d(input, osize, align_corners, scale_d, scale_h, scale_w)


@meta_function("upsample_trilinear3d", TRILINEAR3D)
def meta_upsample_trilinear3d(
    it: TensorIteratorBase,
    self: Tensor,
    output_size: Sequence[int],
    align_corners: bool,
    scales_d: float | None,
    scales_h: float | None,
    scales_w: float | None,
) -> None:
    upsample_meta(it, self, output_size, 3)


@impl_function("upsample_trilinear3d_out_cpu", TRILINEAR3D)
def upsample_trilinear3d_out_cpu(
    it: TensorIteratorBase,
    self: Tensor,
    output_size: Sequence[int],
    align_corners: bool,
    scales_d: float | None,
    scales_h: float | None,
    scales_w: float | None,
    out: Tensor,
) -> None:
    _forward(
        self, align_corners, [scales_d, scales_h, scales_w], out, "compute_indices_weights_linear"
    )


@meta_function("upsample_trilinear3d_backward", TRILINEAR3D)
def meta_upsample_trilinear3d_backward(
    it: TensorIteratorBase,
    grad_output: Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    align_corners: bool,
    scales_d: float | None,
    scales_h: float | None,
    scales_w: float | None,
) -> None:
    upsample_backward_meta(it, grad_output, output_size, input_size, 3)


@impl_function("upsample_trilinear3d_backward_out_cpu", TRILINEAR3D)
def upsample_trilinear3d_backward_out_cpu(
    it: TensorIteratorBase,
    grad_output: Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    align_corners: bool,
    scales_d: float | None,
    scales_h: float | None,
    scales_w: float | None,
    grad_input: Tensor,
) -> None:
    _backward(
        grad_output,
        align_corners,
        [scales_d, scales_h, scales_w],
        grad_input,
        "upsample_trilinear3d_backward",
    )
