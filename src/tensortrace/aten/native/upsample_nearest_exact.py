"""_upsample_nearest_exact1d / 2d / 3d (F.interpolate's mode='nearest-exact'): the `.vec`
overloads, and the structured forward and backward kernels.

Mirrors the nearest-exact halves of `aten/src/ATen/native/UpSampleNearest1d.cpp`, `2d.cpp` and
`3d.cpp`: the same checks and kernels as nearest (upsample_nearest.py), with the source index
nearest_exact_idx = floor((dst + 0.5) * scale), clamped, where nearest takes floor(dst * scale).
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.native.upsample import (
    compute_output_size,
    get_scale_value,
    upsample_backward_meta,
    upsample_meta,
)
from tensortrace.aten.native.upsample_nearest import (
    NEAREST1D,
    NEAREST2D,
    NEAREST3D,
    _backward,
    _forward,
)
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase

KERNEL_NAME = "compute_indices_weights_nearest"


# ---- 1d ------------------------------------------------------------------------------------------
@native_function(NEAREST1D, name="_upsample_nearest_exact1d")
def _upsample_nearest_exact1d_vec(
    input: Tensor, output_size: Sequence[int] | None, scale_factors: Sequence[float] | None
) -> Tensor:
    osize = compute_output_size(input.sizes(), output_size, scale_factors)
    # by keyword: three positional arguments would select the .vec overload again
    return at._upsample_nearest_exact1d(input, osize, scales=get_scale_value(scale_factors, 0))


@meta_function("_upsample_nearest_exact1d", NEAREST1D)
def meta__upsample_nearest_exact1d(
    it: TensorIteratorBase, self: Tensor, output_size: Sequence[int], scales: float | None
) -> None:
    upsample_meta(it, self, output_size, 1)


@impl_function("_upsample_nearest_exact1d_out_cpu", NEAREST1D)
def _upsample_nearest_exact1d_out_cpu(
    it: TensorIteratorBase,
    self: Tensor,
    output_size: Sequence[int],
    scales: float | None,
    out: Tensor,
) -> None:
    _forward(self, [scales], out, KERNEL_NAME, exact=True)


@meta_function("_upsample_nearest_exact1d_backward", NEAREST1D)
def meta__upsample_nearest_exact1d_backward(
    it: TensorIteratorBase,
    grad_output: Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    scales: float | None,
) -> None:
    upsample_backward_meta(it, grad_output, output_size, input_size, 1)


@impl_function("_upsample_nearest_exact1d_backward_out_cpu", NEAREST1D)
def _upsample_nearest_exact1d_backward_out_cpu(
    it: TensorIteratorBase,
    grad_output: Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    scales: float | None,
    grad_input: Tensor,
) -> None:
    name = "_upsample_nearest_exact1d_backward"
    _backward(grad_output, [scales], grad_input, name, exact=True)


# ---- 2d ------------------------------------------------------------------------------------------
@native_function(NEAREST2D, name="_upsample_nearest_exact2d")
def _upsample_nearest_exact2d_vec(
    input: Tensor, output_size: Sequence[int] | None, scale_factors: Sequence[float] | None
) -> Tensor:
    osize = compute_output_size(input.sizes(), output_size, scale_factors)
    scale_h = get_scale_value(scale_factors, 0)
    scale_w = get_scale_value(scale_factors, 1)
    return at._upsample_nearest_exact2d(input, osize, scale_h, scale_w)


@meta_function("_upsample_nearest_exact2d", NEAREST2D)
def meta__upsample_nearest_exact2d(
    it: TensorIteratorBase,
    self: Tensor,
    output_size: Sequence[int],
    scales_h: float | None,
    scales_w: float | None,
) -> None:
    upsample_meta(it, self, output_size, 2)


@impl_function("_upsample_nearest_exact2d_out_cpu", NEAREST2D)
def _upsample_nearest_exact2d_out_cpu(
    it: TensorIteratorBase,
    self: Tensor,
    output_size: Sequence[int],
    scales_h: float | None,
    scales_w: float | None,
    out: Tensor,
) -> None:
    _forward(self, [scales_h, scales_w], out, "upsample_nearest2d_channels_last", exact=True)


@meta_function("_upsample_nearest_exact2d_backward", NEAREST2D)
def meta__upsample_nearest_exact2d_backward(
    it: TensorIteratorBase,
    grad_output: Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    scales_h: float | None,
    scales_w: float | None,
) -> None:
    upsample_backward_meta(it, grad_output, output_size, input_size, 2)


@impl_function("_upsample_nearest_exact2d_backward_out_cpu", NEAREST2D)
def _upsample_nearest_exact2d_backward_out_cpu(
    it: TensorIteratorBase,
    grad_output: Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    scales_h: float | None,
    scales_w: float | None,
    grad_input: Tensor,
) -> None:
    name = "_upsample_nearest_exact2d_backward"
    _backward(grad_output, [scales_h, scales_w], grad_input, name, exact=True)


# ---- 3d ------------------------------------------------------------------------------------------
@native_function(NEAREST3D, name="_upsample_nearest_exact3d")
def _upsample_nearest_exact3d_vec(
    input: Tensor, output_size: Sequence[int] | None, scale_factors: Sequence[float] | None
) -> Tensor:
    osize = compute_output_size(input.sizes(), output_size, scale_factors)
    scale_d = get_scale_value(scale_factors, 0)
    scale_h = get_scale_value(scale_factors, 1)
    scale_w = get_scale_value(scale_factors, 2)
    return at._upsample_nearest_exact3d(input, osize, scale_d, scale_h, scale_w)


@meta_function("_upsample_nearest_exact3d", NEAREST3D)
def meta__upsample_nearest_exact3d(
    it: TensorIteratorBase,
    self: Tensor,
    output_size: Sequence[int],
    scales_d: float | None,
    scales_h: float | None,
    scales_w: float | None,
) -> None:
    upsample_meta(it, self, output_size, 3)


@impl_function("_upsample_nearest_exact3d_out_cpu", NEAREST3D)
def _upsample_nearest_exact3d_out_cpu(
    it: TensorIteratorBase,
    self: Tensor,
    output_size: Sequence[int],
    scales_d: float | None,
    scales_h: float | None,
    scales_w: float | None,
    out: Tensor,
) -> None:
    _forward(self, [scales_d, scales_h, scales_w], out, KERNEL_NAME, exact=True)


@meta_function("_upsample_nearest_exact3d_backward", NEAREST3D)
def meta__upsample_nearest_exact3d_backward(
    it: TensorIteratorBase,
    grad_output: Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    scales_d: float | None,
    scales_h: float | None,
    scales_w: float | None,
) -> None:
    upsample_backward_meta(it, grad_output, output_size, input_size, 3)


@impl_function("_upsample_nearest_exact3d_backward_out_cpu", NEAREST3D)
def _upsample_nearest_exact3d_backward_out_cpu(
    it: TensorIteratorBase,
    grad_output: Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    scales_d: float | None,
    scales_h: float | None,
    scales_w: float | None,
    grad_input: Tensor,
) -> None:
    name = "_upsample_nearest_exact3d_backward_cl"
    _backward(grad_output, [scales_d, scales_h, scales_w], grad_input, name, exact=True)
