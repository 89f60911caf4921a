"""The slow convolution path: its forward and backward frames, for any number of spatial dims.

Mirrors `aten/src/ATen/native/ConvolutionMM2d.cpp` (slow_conv2d_update_output_frame and
slow_conv2d_backward_frame): im2col, here a strided NumPy window view of the zero-padded input,
and one matrix product per group. convolution.py's _convolution and convolution_backward call
these on 4-D arrays (a 1-D convolution is viewed as a 2-D one first, as Convolution.cpp does).
The data path itself (conv_forward_nd / conv_backward_nd) takes N spatial dims: the 3-D frames
of ConvolutionMM3d.cpp, DilatedConvolution.cpp and NaiveConvolutionTranspose3d.cpp run it too.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from tensortrace.trace import traced

MM2D = "aten/src/ATen/native/ConvolutionMM2d.cpp"


def _windows(
    x: np.ndarray,
    kernel: Sequence[int],
    out: Sequence[int],
    stride: Sequence[int],
    dilation: Sequence[int],
) -> np.ndarray:
    """The im2col columns as a view: [n, c, *o, *k] = x[n, c, *(o * stride + k * dilation)]."""
    sn, sc, *sp = x.strides
    return np.lib.stride_tricks.as_strided(
        x,
        (x.shape[0], x.shape[1], *out, *kernel),
        (
            sn,
            sc,
            *(s * st for s, st in zip(sp, stride)),
            *(s * d for s, d in zip(sp, dilation)),
        ),
        writeable=False,
    )


def _out_size(size: int, pad: int, dil: int, k: int, stride: int) -> int:
    return (size + 2 * pad - dil * (k - 1) - 1) // stride + 1


def _pad(x: np.ndarray, padding: Sequence[int]) -> np.ndarray:
    return np.ascontiguousarray(np.pad(x, [(0, 0), (0, 0), *((p, p) for p in padding)]))


def conv_forward_nd(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
) -> np.ndarray:
    """The grouped convolution of x (n, c, *spatial) with w (o, c / groups, *kernel)."""
    d = x.ndim - 2
    o, cg = w.shape[:2]
    kernel = w.shape[2:]
    out_sizes = [
        _out_size(x.shape[2 + i], padding[i], dilation[i], kernel[i], stride[i]) for i in range(d)
    ]
    cols = _windows(_pad(x, padding), kernel, out_sizes, stride, dilation)
    og = o // groups
    out = np.empty((x.shape[0], o, *out_sizes), dtype=x.dtype)
    col_axes = [1, *range(2 + d, 2 + 2 * d)]  # the channel and kernel axes of the columns
    for g in range(groups):
        colg = cols[:, g * cg : (g + 1) * cg]
        wg = w[g * og : (g + 1) * og]
        res = np.tensordot(colg, wg, axes=(col_axes, [1, *range(2, 2 + d)]))  # n, *out, og
        out[:, g * og : (g + 1) * og] = np.moveaxis(res, -1, 1)
    if b is not None:
        out += b.reshape(1, -1, *([1] * d))
    return out


def conv_backward_nd(
    go: np.ndarray,
    x: np.ndarray,
    w: np.ndarray,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
    mask: Sequence[bool],
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """(grad_input, grad_weight, grad_bias) of conv_forward_nd, each only where mask says."""
    d = x.ndim - 2
    o, cg = w.shape[:2]
    kernel = w.shape[2:]
    out_sizes = go.shape[2:]
    og = o // groups
    gi = gw = gb = None
    spatial = list(range(2, 2 + d))
    if mask[0]:
        # col2im: every kernel offset scatters grad_output @ weight back onto the padded input
        gxp = np.zeros(
            (x.shape[0], x.shape[1], *(s + 2 * p for s, p in zip(x.shape[2:], padding))),
            dtype=x.dtype,
        )
        for g in range(groups):
            gog = go[:, g * og : (g + 1) * og]
            wg = w[g * og : (g + 1) * og]
            for offset in itertools.product(*(range(k) for k in kernel)):
                taps: tuple[Any, ...] = (slice(None), slice(None), *offset)
                contrib = np.tensordot(gog, wg[taps], ([1], [0]))
                region = tuple(
                    slice(k * dil, k * dil + st * (n - 1) + 1, st)
                    for k, dil, st, n in zip(offset, dilation, stride, out_sizes)
                )
                gxp[(slice(None), slice(g * cg, (g + 1) * cg), *region)] += np.moveaxis(
                    contrib, -1, 1
                )
        gi = gxp[
            (slice(None), slice(None), *(slice(p, p + s) for p, s in zip(padding, x.shape[2:])))
        ]
    if mask[1]:
        cols = _windows(_pad(x, padding), kernel, out_sizes, stride, dilation)
        gw = np.empty_like(w)
        for g in range(groups):
            colg = cols[:, g * cg : (g + 1) * cg]
            gog = go[:, g * og : (g + 1) * og]
            gw[g * og : (g + 1) * og] = np.tensordot(gog, colg, axes=([0, *spatial], [0, *spatial]))
    if mask[2]:
        gb = go.sum(axis=(0, *spatial))
    return gi, gw, gb


@traced(
    "kernel",
    "at::native::(anonymous)::slow_conv2d_update_output_frame",
    MM2D,
    legacy="slow_conv2d_update_output_frame",
)
def _conv2d_forward_kernel(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None,
    stride: list[int],
    padding: list[int],
    dilation: list[int],
    groups: int,
) -> np.ndarray:
    return conv_forward_nd(x, w, b, stride, padding, dilation, groups)


@traced(
    "kernel",
    "at::native::(anonymous)::slow_conv2d_backward_frame",
    MM2D,
    legacy="slow_conv2d_backward_frame",
)
def _conv2d_backward_kernel(
    go: np.ndarray,
    x: np.ndarray,
    w: np.ndarray,
    stride: list[int],
    padding: list[int],
    dilation: list[int],
    groups: int,
    mask: Sequence[bool],
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    return conv_backward_nd(go, x, w, stride, padding, dilation, groups, mask)
