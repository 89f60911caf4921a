"""_upsample_bilinear2d_aa / _upsample_bicubic2d_aa: antialiased resizing, forward and backward.

Mirrors `aten/src/ATen/native/UpSampleBilinear2d.cpp` / `UpSampleBicubic2d.cpp` (the `_aa`
structured ops; their meta checks are the non-antialiased ones') and the separable kernel of
`cpu/UpSampleKernel.cpp` (_compute_indices_min_size_weights_aa): when downsampling, each output
reads every input within support = interp_size / 2 * scale of its center, weighted by the
filter (triangle for bilinear, Keys cubic with a = -0.5 for bicubic, as Pillow) at
(j - center + 0.5) / scale, the weights normalized to sum 1; upsampling uses the plain support.
One pass per dim, the width first, a dim of unchanged size skipped. Each pass is a matrix of
weights (out x in); the backward (cpu_upsample_genNd_backward_aa) applies their transposes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import impl_function, meta_function, native_function
from tensortrace.aten.native.upsample import (
    area_pixel_compute_scale,
    check_kernel_dtype,
    compute_output_size,
    get_scale_value,
    upsample_backward_meta,
    upsample_meta,
)
from tensortrace.aten.native.upsample_nearest import _planes
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.trace import traced

BILINEAR = "aten/src/ATen/native/UpSampleBilinear2d.cpp"
BICUBIC = "aten/src/ATen/native/UpSampleBicubic2d.cpp"
KERNEL = "aten/src/ATen/native/cpu/UpSampleKernel.cpp"


def _linear_filter(x: float) -> float:
    x = abs(x)
    return 1.0 - x if x < 1.0 else 0.0


def _cubic_filter(x: float) -> float:
    a = -0.5  # Pillow's
    x = abs(x)
    if x < 1.0:
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1
    if x < 2.0:
        return (((x - 5) * x + 8) * x - 4) * a
    return 0.0


def _aa_weights(
    input_size: int,
    output_size: int,
    align_corners: bool,
    scale: float | None,
    interp_size: int,
    filter_fn: Callable[[float], float],
    dtype: type[np.floating],
) -> np.ndarray:
    """The (output, input) weight matrix of one dim, in the kernel's scalar type."""
    t = dtype
    s = t(area_pixel_compute_scale(input_size, output_size, align_corners, scale, t))
    support = t(interp_size * 0.5) * s if s >= 1.0 else t(interp_size * 0.5)
    max_interp_size = int(math.ceil(float(support))) * 2 + 1
    invscale = t(1.0) / s if s >= 1.0 else t(1.0)
    matrix = np.zeros((output_size, input_size), dtype=dtype)
    for i in range(output_size):
        center = s * t(i + 0.5)
        xmin = max(int(center - support + t(0.5)), 0)
        xsize = min(int(center + support + t(0.5)), input_size) - xmin
        xsize = min(max(xsize, 0), max_interp_size)
        w = np.array(
            [filter_fn(float(t((j + xmin - center + t(0.5)) * invscale))) for j in range(xsize)],
            dtype=dtype,
        )
        total = w.sum(dtype=dtype)
        if total != 0:
            w = (w / total).astype(dtype)
        matrix[i, xmin : xmin + xsize] = w
    return matrix


def _matrices(
    in_sizes: Sequence[int],
    out_sizes: Sequence[int],
    align_corners: bool,
    scales: Sequence[float | None],
    bicubic: bool,
    dtype: type[np.floating],
) -> list[np.ndarray | None]:
    """Per dim (H, W): the weight matrix, None where the size is unchanged (the pass skipped)."""
    interp, fn = (4, _cubic_filter) if bicubic else (2, _linear_filter)
    return [
        None if i == o else _aa_weights(i, o, align_corners, s, interp, fn, dtype)
        for i, o, s in zip(in_sizes, out_sizes, scales, strict=True)
    ]


def _uint8_pass(x: np.ndarray, m: np.ndarray, axis: int) -> np.ndarray:
    """One pass of UpSampleKernelAVXAntialias.h (torch's uint8 path): the weights as int16 fixed
    point (the most bits that keep 2 * w_max under 2^15), the sum rounded and shifted back."""
    w_max = float(m.max())
    precision = 0
    while precision < 22 and int(0.5 + w_max * (1 << (precision + 1))) < (1 << 15):
        precision += 1
    v = m.astype(np.float64) * (1 << precision)
    fixed = np.where(v < 0, np.trunc(v - 0.5), np.trunc(v + 0.5)).astype(np.int64)
    acc = np.moveaxis(np.tensordot(x.astype(np.int64), fixed, axes=([axis], [1])), -1, axis)
    return np.clip((acc + (1 << (precision - 1))) >> precision, 0, 255).astype(np.uint8)


@traced("kernel", "at::native::(anonymous)::separable_upsample_generic_Nd_kernel_impl", KERNEL)
def _aa_kernel(x: np.ndarray, mats: Sequence[np.ndarray | None]) -> np.ndarray:
    out = x
    for d in reversed(range(len(mats))):  # the width (contiguous dim) first
        m = mats[d]
        if m is None:
            continue
        if x.dtype == np.uint8:
            out = _uint8_pass(out, m, d + 1)
            continue
        out = np.moveaxis(np.tensordot(out, m, axes=([d + 1], [1])), -1, d + 1)
        out = out.astype(x.dtype)  # each pass writes scalar_t
    return np.ascontiguousarray(out)


@traced("kernel", "at::native::(anonymous)::cpu_upsample_genNd_backward_aa", KERNEL)
def _aa_backward_kernel(go: np.ndarray, mats: Sequence[np.ndarray | None]) -> np.ndarray:
    grad = go
    for d in range(len(mats)):
        m = mats[d]
        if m is not None:
            grad = np.moveaxis(np.tensordot(grad, m, axes=([d + 1], [0])), -1, d + 1)
    return np.ascontiguousarray(grad.astype(go.dtype))


def _forward(
    self: Tensor, align_corners: bool, scales: list[float | None], out: Tensor, bicubic: bool
) -> None:
    name = "upsample_bicubic2d_aa" if bicubic else "upsample_bilinear2d_aa"
    check_kernel_dtype(self, name, allow_byte=True)
    if out.numel() == 0:
        return
    x = _planes(self)
    dtype = np.float64 if x.dtype == np.float64 else np.float32
    mats = _matrices(self.sizes()[-2:], out.sizes()[-2:], align_corners, scales, bicubic, dtype)
    res = _aa_kernel(x if x.dtype == np.uint8 else x.astype(dtype, copy=False), mats)
    out.numpy_view()[...] = res.astype(x.dtype).reshape(list(out.sizes()))


def _backward(
    grad_output: Tensor,
    output_size: Sequence[int],
    input_size: Sequence[int],
    align_corners: bool,
    scales: list[float | None],
    grad_input: Tensor,
    bicubic: bool,
) -> None:
    name = "upsample_bicubic2d_aa_backward" if bicubic else "upsample_bilinear2d_aa_backward"
    check_kernel_dtype(grad_output, name, allow_byte=False)
    grad_input.zero_()
    if grad_input.numel() == 0:
        return
    go = _planes(grad_output)
    dtype = np.float64 if go.dtype == np.float64 else np.float32
    mats = _matrices(input_size[-2:], output_size, align_corners, scales, bicubic, dtype)
    res = _aa_backward_kernel(go.astype(dtype, copy=False), mats)
    grad_input.numpy_view()[...] = res.astype(go.dtype).reshape(list(grad_input.sizes()))


# ---- the two ops: bilinear (UpSampleBilinear2d.cpp) and bicubic (UpSampleBicubic2d.cpp) -------
@native_function(BILINEAR, name="_upsample_bilinear2d_aa")
def _upsample_bilinear2d_aa_vec(
    input: Tensor,
    output_size: Sequence[int] | None,
    align_corners: bool,
    scale_factors: Sequence[float] | None,
) -> Tensor:
    osize = compute_output_size(input.sizes(), output_size, scale_factors)
    scale_h, scale_w = get_scale_value(scale_factors, 0), get_scale_value(scale_factors, 1)
    return at._upsample_bilinear2d_aa(input, osize, align_corners, scale_h, scale_w)  # type: ignore[no-any-return]


@native_function(BICUBIC, name="_upsample_bicubic2d_aa")
def _upsample_bicubic2d_aa_vec(
    input: Tensor,
    output_size: Sequence[int] | None,
    align_corners: bool,
    scale_factors: Sequence[float] | None,
) -> Tensor:
    osize = compute_output_size(input.sizes(), output_size, scale_factors)
    scale_h, scale_w = get_scale_value(scale_factors, 0), get_scale_value(scale_factors, 1)
    return at._upsample_bicubic2d_aa(input, osize, align_corners, scale_h, scale_w)  # type: ignore[no-any-return]


def _register(name: str, source: str, bicubic: bool) -> None:
    """The structured meta / impl pairs of one op and its backward."""

    @meta_function(name, source)
    def meta(
        it: TensorIteratorBase,
        self: Tensor,
        output_size: Sequence[int],
        align_corners: bool,
        scales_h: float | None,
        scales_w: float | None,
    ) -> None:
        upsample_meta(it, self, output_size, 2)

    @impl_function(f"{name}_out_cpu", source)
    def impl(
        it: TensorIteratorBase,
        self: Tensor,
        output_size: Sequence[int],
        align_corners: bool,
        scales_h: float | None,
        scales_w: float | None,
        out: Tensor,
    ) -> None:
        _forward(self, align_corners, [scales_h, scales_w], out, bicubic)

    @meta_function(f"{name}_backward", source)
    def meta_backward(
        it: TensorIteratorBase,
        grad_output: Tensor,
        output_size: Sequence[int],
        input_size: Sequence[int],
        align_corners: bool,
        scales_h: float | None,
        scales_w: float | None,
    ) -> None:
        upsample_backward_meta(it, grad_output, output_size, input_size, 2)

    @impl_function(f"{name}_backward_out_cpu", source)
    def impl_backward(
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
            grad_output,
            output_size,
            input_size,
            align_corners,
            [scales_h, scales_w],
            grad_input,
            bicubic,
        )


_register("_upsample_bilinear2d_aa", BILINEAR, False)
_register("_upsample_bicubic2d_aa", BICUBIC, True)
