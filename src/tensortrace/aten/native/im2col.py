"""The im2col / col2im loops and their shape checks.

Mirrors `aten/src/ATen/native/im2col.h` (the loops: im2col copies every kernel_h x kernel_w
window of each channel plane into one column, zero where the window reaches into the padding;
col2im adds every column back into the plane it came from) and
`aten/src/ATen/native/im2col_shape_check.h` (im2col_shape_check, col2im_shape_check, with
torch's messages). The loops work on one batch element, (C, H, W) <-> (C * kh * kw, oh * ow);
NumPy does them as strided window views of the zero-padded plane. col2im adds the kernel offsets
in torch's order ((i, j) row-major), so each output element sums its terms as torch does.
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.wrap_dim_utils import maybe_wrap_dim
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.trace import traced

IM2COL_H = "aten/src/ATen/native/im2col.h"
SHAPE_CHECK = "aten/src/ATen/native/im2col_shape_check.h"


@traced("kernel", "at::native::im2col", IM2COL_H)
def im2col(
    data_im: np.ndarray,
    output_height: int,
    output_width: int,
    kernel: tuple[int, int],
    pad: tuple[int, int],
    stride: tuple[int, int],
    dilation: tuple[int, int],
) -> np.ndarray:
    """(C, H, W) -> (C * kh * kw, oh * ow); column [c*kh*kw + i*kw + j, y*ow + x]."""
    c = data_im.shape[0]
    kh, kw = kernel
    padded = np.pad(data_im, ((0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    sc, sh, sw = padded.strides
    windows = np.lib.stride_tricks.as_strided(
        padded,
        (c, kh, kw, output_height, output_width),
        (sc, sh * dilation[0], sw * dilation[1], sh * stride[0], sw * stride[1]),
        writeable=False,
    )
    return windows.reshape(c * kh * kw, output_height * output_width)


@traced("kernel", "at::native::col2im", IM2COL_H)
def col2im(
    data_col: np.ndarray,
    channels: int,
    height: int,
    width: int,
    height_col: int,
    width_col: int,
    kernel: tuple[int, int],
    pad: tuple[int, int],
    stride: tuple[int, int],
    dilation: tuple[int, int],
) -> np.ndarray:
    """(C * kh * kw, height_col * width_col) -> (C, H, W), each column added back in place."""
    kh, kw = kernel
    cols = data_col.reshape(channels, kh, kw, height_col, width_col)
    # height_col / width_col are computed from height / width: every window fits the padded plane
    padded = np.zeros((channels, height + 2 * pad[0], width + 2 * pad[1]), dtype=data_col.dtype)
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dilation[0], j * dilation[1]
            rows = slice(r0, r0 + (height_col - 1) * stride[0] + 1, stride[0])
            cs = slice(c0, c0 + (width_col - 1) * stride[1] + 1, stride[1])
            padded[:, rows, cs] += cols[:, i, j]
    return padded[:, pad[0] : pad[0] + height, pad[1] : pad[1] + width]


def _size(t: Tensor, dim: int) -> int:
    """TensorBase::size(dim): the dim wrapped and checked (IndexError past the end)."""
    return t.size(maybe_wrap_dim(dim, t.dim()))


def _check_params(
    kernel: tuple[int, int],
    dilation: tuple[int, int],
    pad: tuple[int, int],
    stride: tuple[int, int],
    stride_first: bool,
) -> None:
    checks = [
        (
            kernel[1] > 0 and kernel[0] > 0,
            "kernel size should be greater than zero, but got kernel_height: ",
            kernel[0],
            " kernel_width: ",
            kernel[1],
        ),
        (
            dilation[1] > 0 and dilation[0] > 0,
            "dilation should be greater than zero, but got dilation_height: ",
            dilation[0],
            " dilation_width: ",
            dilation[1],
        ),
        (
            pad[1] >= 0 and pad[0] >= 0,
            "padding should be non-negative, but got pad_height: ",
            pad[0],
            " pad_width: ",
            pad[1],
        ),
    ]
    stride_check = (
        stride[1] > 0 and stride[0] > 0,
        "stride should be greater than zero, but got stride_height: ",
        stride[0],
        " stride_width: ",
        stride[1],
    )
    # col2im checks the stride second, im2col last
    checks.insert(1 if stride_first else 3, stride_check)
    for cond, *msg in checks:
        TORCH_CHECK(cond, *msg)


def _params_text(kernel: tuple[int, int], dilation: tuple[int, int], pad: tuple[int, int]) -> str:
    return (
        f"kernel_size=({kernel[0]}, {kernel[1]}), dilation=({dilation[0]}, {dilation[1]}), "
        f"padding=({pad[0]}, {pad[1]}), "
    )


def im2col_shape_check(
    input: Tensor,
    kernel: tuple[int, int],
    dilation: tuple[int, int],
    pad: tuple[int, int],
    stride: tuple[int, int],
) -> None:
    _check_params(kernel, dilation, pad, stride, stride_first=False)
    ndim = input.dim()
    # allow dim=0 only the batch dimension.
    valid_dims = _size(input, 1) != 0 and _size(input, 2) != 0
    TORCH_CHECK(
        (ndim == 3 and _size(input, 0) != 0 and valid_dims)
        or (ndim == 4 and valid_dims and _size(input, 3) != 0),
        "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
        "dimensions for input, but got: ",
        list(input.sizes()),
    )
    dim_batch = -1 if ndim == 3 else 0
    input_height = _size(input, dim_batch + 2)
    input_width = _size(input, dim_batch + 3)
    output_height = (input_height + 2 * pad[0] - (dilation[0] * (kernel[0] - 1) + 1)) // stride[
        0
    ] + 1
    output_width = (input_width + 2 * pad[1] - (dilation[1] * (kernel[1] - 1) + 1)) // stride[1] + 1
    TORCH_CHECK(
        not (output_height < 1 or output_width < 1),
        f"Given input with spatial size ({input_height}, {input_width}), "
        + _params_text(kernel, dilation, pad)[:-2]
        + f", calculated shape of the array of sliding blocks as ({output_height}, "
        f"{output_width}), but its components must be at least one.",
    )


def col2im_shape_check(
    input: Tensor,
    output_size: tuple[int, int],
    kernel: tuple[int, int],
    dilation: tuple[int, int],
    pad: tuple[int, int],
    stride: tuple[int, int],
) -> None:
    _check_params(kernel, dilation, pad, stride, stride_first=True)
    ndim = input.dim()
    # allow dim=0 only the batch dimension.
    TORCH_CHECK(
        (ndim == 2 and _size(input, 0) != 0 and _size(input, 1) != 0)
        or (ndim == 3 and _size(input, 1) != 0 and _size(input, 2) != 0),
        "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
        "dimensions for input, but got: ",
        list(input.sizes()),
    )
    batch_dim = 0 if ndim == 3 else -1
    n_input_plane = _size(input, batch_dim + 1)
    TORCH_CHECK(
        n_input_plane % (kernel[0] * kernel[1]) == 0,
        "Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
        f"but got input.size(1)={n_input_plane} and kernel_size=({kernel[0]}, {kernel[1]}).",
    )
    output_height, output_width = output_size
    input_length = _size(input, batch_dim + 2)
    n_blocks_height = (output_height + 2 * pad[0] - dilation[0] * (kernel[0] - 1) - 1) // stride[
        0
    ] + 1
    n_blocks_width = (output_width + 2 * pad[1] - dilation[1] * (kernel[1] - 1) - 1) // stride[
        1
    ] + 1
    given = (
        f"Given output_size=({output_height}, {output_width}), "
        + _params_text(kernel, dilation, pad)
        + f"stride=({stride[0]}, {stride[1]}), "
    )
    TORCH_CHECK(
        input_length == n_blocks_height * n_blocks_width,
        given,
        "expected size of input's dimension 2 to match the calculated number of sliding blocks ",
        f"{n_blocks_height} * {n_blocks_width} = {n_blocks_height * n_blocks_width}, "
        f"but got input.size(2)={input_length}.",
    )
    TORCH_CHECK(
        n_blocks_height >= 1 and n_blocks_width >= 1,
        given,
        f"calculated shape of the array of sliding blocks as ({n_blocks_height}, "
        f"{n_blocks_width}), which is too small (non-positive)",
    )
    TORCH_CHECK(
        not (output_width < 1 or output_height < 1),
        "Expected output spatial size to be positive, but got: output_size=(",
        output_height,
        ", ",
        output_width,
        ").",
    )
