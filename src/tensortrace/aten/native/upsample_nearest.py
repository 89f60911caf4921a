"""upsample_nearest1d / 2d / 3d: the `.vec` overloads, and the structured forward and
backward kernels.

Mirrors `aten/src/ATen/native/UpSampleNearest1d.cpp`, `2d.cpp` and `3d.cpp`: the `.vec`
overload (what F.interpolate calls) turns output_size / scale_factors into the sizes and the
per-dim scales (UpSample.cpp) and calls the operator proper; its TORCH_META_FUNC checks the
shapes and sets the output, its TORCH_IMPL_FUNC runs the kernel of `cpu/UpSampleKernel.cpp`
(each output index reads input index nearest_idx). The backward adds each grad_output value
into the input cell it was read from.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.cpu.upsample_kernel import (
    upsample_nearest_backward_kernel,
    upsample_nearest_kernel,
)
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.native.upsample import (
    check_kernel_dtype,
    compute_output_size,
    get_scale_value,
    nearest_exact_idx,
    nearest_idx,
    upsample_backward_meta,
    upsample_meta,
)
from tensortrace.aten.tensor_body import Tensor, expect_contiguous
from tensortrace.aten.tensor_iterator import TensorIteratorBase

NEAREST1D = "aten/src/ATen/native/UpSampleNearest1d.cpp"
NEAREST2D = "aten/src/ATen/native/UpSampleNearest2d.cpp"
NEAREST3D = "aten/src/ATen/native/UpSampleNearest3d.cpp"


def _planes(t: Tensor) -> np.ndarray:
    arr = np.asarray(expect_contiguous(t).numpy_view())
    return arr.reshape(-1, *arr.shape[2:])


def _indices(
    in_sizes: Sequence[int],
    out_sizes: Sequence[int],
    scales: Sequence[float | None],
    exact: bool = False,
) -> list[np.ndarray]:
    idx = nearest_exact_idx if exact else nearest_idx
    return [idx(i, o, s) for i, o, s in zip(in_sizes, out_sizes, scales, strict=True)]


def _forward(
    self: Tensor, scales: Sequence[float | None], out: Tensor, name: str, exact: bool = False
) -> None:
    """The nearest kernel; `exact`: nearest-exact's source indices (nearest_exact_idx)."""
    check_kernel_dtype(self, name, allow_byte=True)
    if out.numel() == 0:
        return
    spatial = len(scales)
    idx = _indices(self.sizes()[-spatial:], out.sizes()[-spatial:], scales, exact)
    res = upsample_nearest_kernel(_planes(self), idx)
    out.numpy_view()[...] = res.reshape(list(out.sizes()))


def _backward(
    grad_output: Tensor,
    scales: Sequence[float | None],
    grad_input: Tensor,
    name: str,
    exact: bool = False,
) -> None:
    check_kernel_dtype(grad_output, name, allow_byte=False)
    grad_input.zero_()
    if grad_input.numel() == 0:
        return
    spatial = len(scales)
    in_sizes = list(grad_input.sizes()[-spatial:])
    idx = _indices(in_sizes, grad_output.sizes()[-spatial:], scales, exact)
    res = upsample_nearest_backward_kernel(_planes(grad_output), in_sizes, idx)
    grad_input.numpy_view()[...] = res.reshape(list(grad_input.sizes()))


# ---- UpSampleNearest1d.cpp --------------------------------------------------------------------
@native_function(NEAREST1D, name="upsample_nearest1d")
def upsample_nearest1d_vec(
    input: Tensor, output_size: Sequence[int] | None, scale_factors: Sequence[float] | None
) -> Tensor:
    osize = compute_output_size(input.sizes(), output_size, scale_factors)
    scale_w = get_scale_value(scale_factors, 0)
    return at.upsample_nearest1d(input, osize, scales=scale_w)


@meta_function("upsample_nearest1d", NEAREST1D)
def meta_upsample_nearest1d(
    it: TensorIteratorBase, self: Tensor, output_size: Sequence[int], scales: float | None
) -> None:
    upsample_meta(it, self, output_size, 1)


@impl_function("upsample_nearest1d_out_cpu", NEAREST1D)
def upsample_nearest1d_out_cpu(
    it: TensorIteratorBase,
    self: Tensor,
    output_size: Sequence[int],
    scales: float | None,
    out: Tensor,
) -> None:
    _forward(self, [scales], out, "compute_indices_weights_nearest")


@meta_function("upsample_nearest1d_backward", NEAREST1D)
def meta_upsample_nearest1d_backward(
    it: TensorIteratorBase,
    grad_output: Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    scales: float | None,
) -> None:
    upsample_backward_meta(it, grad_output, output_size, input_size, 1)


@impl_function("upsample_nearest1d_backward_out_cpu", NEAREST1D)
def upsample_nearest1d_backward_out_cpu(
    it: TensorIteratorBase,
    grad_output: Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    scales: float | None,
    grad_input: Tensor,
) -> None:
    _backward(grad_output, [scales], grad_input, "upsample_nearest1d_backward")


# ---- UpSampleNearest2d.cpp --------------------------------------------------------------------
@native_function(NEAREST2D, name="upsample_nearest2d")
def upsample_nearest2d_vec(
    input: Tensor, output_size: Sequence[int] | None, scale_factors: Sequence[float] | None
) -> Tensor:
    osize = compute_output_size(input.sizes(), output_size, scale_factors)
    scale_h = get_scale_value(scale_factors, 0)
    scale_w = get_scale_value(scale_factors, 1)
    return at.upsample_nearest2d(input, osize, scale_h, scale_w)


@meta_function("upsample_nearest2d", NEAREST2D)
def meta_upsample_nearest2d(
    it: TensorIteratorBase,
    self: Tensor,
    output_size: Sequence[int],
    scales_h: float | None,
    scales_w: float | None,
) -> None:
    upsample_meta(it, self, output_size, 2)


@impl_function("upsample_nearest2d_out_cpu", NEAREST2D)
def upsample_nearest2d_out_cpu(
    it: TensorIteratorBase,
    self: Tensor,
    output_size: Sequence[int],
    scales_h: float | None,
    scales_w: float | None,
    out: Tensor,
) -> None:
    _forward(self, [scales_h, scales_w], out, "upsample_nearest2d_channels_last")


@meta_function("upsample_nearest2d_backward", NEAREST2D)
def meta_upsample_nearest2d_backward(
    it: TensorIteratorBase,
    grad_output: Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    scales_h: float | None,
    scales_w: float | None,
) -> None:
    upsample_backward_meta(it, grad_output, output_size, input_size, 2)


@impl_function("upsample_nearest2d_backward_out_cpu", NEAREST2D)
def upsample_nearest2d_backward_out_cpu(
    it: TensorIteratorBase,
    grad_output: Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    scales_h: float | None,
    scales_w: float | None,
    grad_input: Tensor,
) -> None:
    _backward(grad_output, [scales_h, scales_w], grad_input, "upsample_nearest2d_backward")


# ---- UpSampleNearest3d.cpp --------------------------------------------------------------------
@native_function(NEAREST3D, name="upsample_nearest3d")
def upsample_nearest3d_vec(
    input: Tensor, output_size: Sequence[int] | None, scale_factors: Sequence[float] | None
) -> Tensor:
    osize = compute_output_size(input.sizes(), output_size, scale_factors)
    scale_d = get_scale_value(scale_factors, 0)
    scale_h = get_scale_value(scale_factors, 1)
    scale_w = get_scale_value(scale_factors, 2)
    return at.upsample_nearest3d(input, osize, scale_d, scale_h, scale_w)


@meta_function("upsample_nearest3d", NEAREST3D)
def meta_upsample_nearest3d(
    it: TensorIteratorBase,
    self: Tensor,
    output_size: Sequence[int],
    scales_d: float | None,
    scales_h: float | None,
    scales_w: float | None,
) -> None:
    upsample_meta(it, self, output_size, 3)


@impl_function("upsample_nearest3d_out_cpu", NEAREST3D)
def upsample_nearest3d_out_cpu(
    it: TensorIteratorBase,
    self: Tensor,
    output_size: Sequence[int],
    scales_d: float | None,
    scales_h: float | None,
    scales_w: float | None,
    out: Tensor,
) -> None:
    _forward(self, [scales_d, scales_h, scales_w], out, "compute_indices_weights_nearest")


@meta_function("upsample_nearest3d_backward", NEAREST3D)
def meta_upsample_nearest3d_backward(
    it: TensorIteratorBase,
    grad_output: Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    scales_d: float | None,
    scales_h: float | None,
    scales_w: float | None,
) -> None:
    upsample_backward_meta(it, grad_output, output_size, input_size, 3)


@impl_function("upsample_nearest3d_backward_out_cpu", NEAREST3D)
def upsample_nearest3d_backward_out_cpu(
    it: TensorIteratorBase,
    grad_output: Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    scales_d: float | None,
    scales_h: float | None,
    scales_w: float | None,
    grad_input: Tensor,
) -> None:
    _backward(
        grad_output, [scales_d, scales_h, scales_w], grad_input, "_upsample_nearest3d_backward_cl"
    )
