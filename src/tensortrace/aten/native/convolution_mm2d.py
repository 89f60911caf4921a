"""The slow 2D convolution path: its forward and backward frames.

Mirrors `aten/src/ATen/native/ConvolutionMM2d.cpp` (slow_conv2d_update_output_frame and
slow_conv2d_backward_frame): im2col, here a strided NumPy window view of the zero-padded input,
and one matrix product per group. convolution.py's _convolution and convolution_backward call
these on 4-D arrays (a 1-D convolution is viewed as a 2-D one first, as Convolution.cpp does).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.trace import traced

MM2D = "aten/src/ATen/native/ConvolutionMM2d.cpp"


def _windows(
    x: np.ndarray, kh: int, kw: int, oh: int, ow: int, stride: list[int], dilation: list[int]
) -> np.ndarray:
    """The im2col columns as a view: [n, c, oh, ow, i, j] = x[n, c, oh*sh + i*dh, ow*sw + j*dw]."""
    sn, sc, sh, sw = x.strides
    return np.lib.stride_tricks.as_strided(
        x,
        (x.shape[0], x.shape[1], oh, ow, kh, kw),
        (sn, sc, sh * stride[0], sw * stride[1], sh * dilation[0], sw * dilation[1]),
        writeable=False,
    )


def _out_size(size: int, pad: int, dil: int, k: int, stride: int) -> int:
    return (size + 2 * pad - dil * (k - 1) - 1) // stride + 1


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
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh = _out_size(h, padding[0], dilation[0], kh, stride[0])
    ow = _out_size(wd, padding[1], dilation[1], kw, stride[1])
    xp = np.ascontiguousarray(np.pad(x, ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2)))
    cols = _windows(xp, kh, kw, oh, ow, stride, dilation)
    og = o // groups
    out = np.empty((n, o, oh, ow), dtype=x.dtype)
    for g in range(groups):
        colg = cols[:, g * cg : (g + 1) * cg]  # n, cg, oh, ow, kh, kw
        wg = w[g * og : (g + 1) * og]  # og, cg, kh, kw
        res = np.tensordot(colg, wg, axes=([1, 4, 5], [1, 2, 3]))  # n, oh, ow, og
        out[:, g * og : (g + 1) * og] = res.transpose(0, 3, 1, 2)
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out


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
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh, ow = go.shape[2], go.shape[3]
    og = o // groups
    ph, pw = padding
    gi = gw = gb = None
    if mask[0]:
        gxp = np.zeros((n, c, h + 2 * ph, wd + 2 * pw), dtype=x.dtype)
        for g in range(groups):
            gog = go[:, g * og : (g + 1) * og]
            wg = w[g * og : (g + 1) * og]
            for i in range(kh):
                for j in range(kw):
                    r0, c0 = i * dilation[0], j * dilation[1]
                    contrib = np.tensordot(gog, wg[:, :, i, j], axes=([1], [0]))  # n oh ow cg
                    gxp[
                        :,
                        g * cg : (g + 1) * cg,
                        r0 : r0 + stride[0] * (oh - 1) + 1 : stride[0],
                        c0 : c0 + stride[1] * (ow - 1) + 1 : stride[1],
                    ] += contrib.transpose(0, 3, 1, 2)
        gi = gxp[:, :, ph : ph + h, pw : pw + wd]
    if mask[1]:
        xp = np.ascontiguousarray(np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw))))
        cols = _windows(xp, kh, kw, oh, ow, stride, dilation)
        gw = np.empty_like(w)
        for g in range(groups):
            colg = cols[:, g * cg : (g + 1) * cg]
            gog = go[:, g * og : (g + 1) * og]
            gw[g * og : (g + 1) * og] = np.tensordot(gog, colg, axes=([0, 2, 3], [0, 2, 3]))
    if mask[2]:
        gb = go.sum(axis=(0, 2, 3))
    return gi, gw, gb
