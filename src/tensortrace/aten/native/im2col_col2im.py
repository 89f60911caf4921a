"""im2col and col2im: the ops behind F.unfold / F.fold (nn.Unfold / nn.Fold).

Mirrors `aten/src/ATen/native/Im2Col.cpp` (im2col_out_cpu_template) and
`aten/src/ATen/native/Col2Im.cpp` (col2im_out_cpu_template, and Note [im2col/col2im output
padding]: col2im takes the output size, rather than computing it, so that it can stop inside
bounds). Each checks its int[2] arguments' lengths, runs the shape check of
im2col_shape_check.h, makes the input contiguous, views an unbatched input as a batch of one,
resizes the output and runs the loop of im2col.h once per batch element. The two are each
other's derivative (derivatives.yaml). The dtypes are AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND3
(BFloat16, Half, Bool): an integer input is NotImplementedError.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native import im2col as loops
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType, isComplexType, isFloatingType

IM2COL = "aten/src/ATen/native/Im2Col.cpp"
COL2IM = "aten/src/ATen/native/Col2Im.cpp"


def _pair(name: str, values: Sequence[int]) -> tuple[int, int]:
    TORCH_CHECK(
        len(values) == 2, "It is expected ", name, " equals to 2, but got size ", len(values)
    )
    return int(values[0]), int(values[1])


def _check_dtype(input: Tensor, name: str) -> None:
    st = input.scalar_type()
    TORCH_CHECK_NOT_IMPLEMENTED(
        isFloatingType(st) or isComplexType(st) or st == ScalarType.Bool,
        f"\"{name}\" not implemented for '{st.name}'",
    )


def _im2col_out_cpu_template(
    output: Tensor,
    input_: Tensor,
    kernel_size: Sequence[int],
    dilation: Sequence[int],
    padding: Sequence[int],
    stride: Sequence[int],
) -> None:
    kernel = _pair("kernel_size", kernel_size)
    dil = _pair("dilation", dilation)
    pad = _pair("padding", padding)
    st = _pair("stride", stride)
    loops.im2col_shape_check(input_, kernel, dil, pad, st)
    input = input_.contiguous()
    batched_input = input.dim() == 4
    if not batched_input:
        input = input.view([1, *input.sizes()])
    batch_size, n_input_plane, input_height, input_width = input.sizes()
    output_height = (input_height + 2 * pad[0] - (dil[0] * (kernel[0] - 1) + 1)) // st[0] + 1
    output_width = (input_width + 2 * pad[1] - (dil[1] * (kernel[1] - 1) + 1)) // st[1] + 1
    n_output_plane = n_input_plane * kernel[0] * kernel[1]
    output_length = output_height * output_width
    output.resize_([batch_size, n_output_plane, output_length])
    _check_dtype(input, "im2col_out_cpu")
    if batch_size and not output.is_meta():  # Note [A meta tensor's kernel is no call]
        x = np.asarray(input.numpy_view())
        out = output.numpy_view()
        for elt in range(batch_size):
            out[elt] = loops.im2col(x[elt], output_height, output_width, kernel, pad, st, dil)
    if not batched_input:
        output.resize_([n_output_plane, output_length])


@native_function(IM2COL)
def im2col_out_cpu(
    self: Tensor,
    kernel_size: Sequence[int],
    dilation: Sequence[int],
    padding: Sequence[int],
    stride: Sequence[int],
    out: Tensor,
) -> Tensor:
    _im2col_out_cpu_template(out, self, kernel_size, dilation, padding, stride)
    return out


@native_function(IM2COL)
def im2col_cpu(
    self: Tensor,
    kernel_size: Sequence[int],
    dilation: Sequence[int],
    padding: Sequence[int],
    stride: Sequence[int],
) -> Tensor:
    output = at.empty_like(self, memory_format="contiguous_format")
    _im2col_out_cpu_template(output, self, kernel_size, dilation, padding, stride)
    return output


def _col2im_out_cpu_template(
    output: Tensor,
    input_: Tensor,
    output_size: Sequence[int],
    kernel_size: Sequence[int],
    dilation: Sequence[int],
    padding: Sequence[int],
    stride: Sequence[int],
) -> None:
    out_size = _pair("output_size", output_size)
    kernel = _pair("kernel_size", kernel_size)
    dil = _pair("dilation", dilation)
    pad = _pair("padding", padding)
    st = _pair("stride", stride)
    loops.col2im_shape_check(input_, out_size, kernel, dil, pad, st)
    input = input_.contiguous()
    batched_input = input.dim() == 3
    if not batched_input:
        # Force batch
        input = input.view([1, input.size(0), input.size(1)])
    batch_size, n_input_plane = input.size(0), input.size(1)
    n_output_plane = n_input_plane // (kernel[0] * kernel[1])
    output_height, output_width = out_size
    output.resize_([batch_size, n_output_plane, output_height, output_width])
    _check_dtype(input, "col2im_out_cpu")
    height_col = (output_height + 2 * pad[0] - (dil[0] * (kernel[0] - 1) + 1)) // st[0] + 1
    width_col = (output_width + 2 * pad[1] - (dil[1] * (kernel[1] - 1) + 1)) // st[1] + 1
    if batch_size and not output.is_meta():  # Note [A meta tensor's kernel is no call]
        x = np.asarray(input.numpy_view())
        out = output.numpy_view()
        for elt in range(batch_size):
            out[elt] = loops.col2im(
                x[elt],
                n_output_plane,
                output_height,
                output_width,
                height_col,
                width_col,
                kernel,
                pad,
                st,
                dil,
            )
    if not batched_input:
        output.resize_([n_output_plane, output_height, output_width])


@native_function(COL2IM)
def col2im_out_cpu(
    self: Tensor,
    output_size: Sequence[int],
    kernel_size: Sequence[int],
    dilation: Sequence[int],
    padding: Sequence[int],
    stride: Sequence[int],
    out: Tensor,
) -> Tensor:
    _col2im_out_cpu_template(out, self, output_size, kernel_size, dilation, padding, stride)
    return out


@native_function(COL2IM)
def col2im_cpu(
    self: Tensor,
    output_size: Sequence[int],
    kernel_size: Sequence[int],
    dilation: Sequence[int],
    padding: Sequence[int],
    stride: Sequence[int],
) -> Tensor:
    output = at.empty_like(self, memory_format="contiguous_format")
    _col2im_out_cpu_template(output, self, output_size, kernel_size, dilation, padding, stride)
    return output
