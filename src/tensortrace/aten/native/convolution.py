"""conv1d, conv2d, convolution, _convolution and convolution_backward.

Mirrors `aten/src/ATen/native/Convolution.cpp` and the checks of `ConvUtils.h`: conv1d / conv2d
(batchify of an unbatched input, the 'same' / 'valid' padding strings of `_convolution_mode`)
call at::convolution, which calls at::_convolution; convolution's derivative is
convolution_backward, which returns (grad_input, grad_weight, grad_bias) for the output_mask.
A 1-D convolution is viewed as a 2-D one (view1d_as_2d: input and weight unsqueezed at dim 2,
stride 1 / padding 0 / dilation 1 prepended, the output squeezed back), as torch does on the CPU.
The slow path of `ConvolutionMM2d.cpp` (convolution_mm2d.py) does the work; a transposed
convolution goes to at::slow_conv_transpose2d (naive_convolution_transpose2d.py), per group.
A 3-D convolution takes select_conv_backend's CPU fallbacks: at::slow_conv3d (Slow3d, groups
whole), at::slow_conv_dilated3d when dilated or on CUDA and at::slow_conv_transpose3d, these
two per group.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.conv_utils import _check_shape_forward
from tensortrace.aten.native.convolution_mm2d import _conv2d_backward_kernel, _conv2d_forward_kernel
from tensortrace.aten.native.convolution_mm3d import conv3d_backward_kernel, tensor_from_numpy
from tensortrace.aten.native.naive_convolution_transpose2d import conv_transpose2d_backward_kernel
from tensortrace.aten.native.naive_convolution_transpose3d import conv_transpose3d_backward_kernel
from tensortrace.aten.native.naive_dilated_convolution import dilated3d_backward_kernel
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar import CPP_TYPE_NAMES

SOURCE = "aten/src/ATen/native/Convolution.cpp"


def _expand(values: Sequence[int] | int, n: int) -> list[int]:
    if isinstance(values, int):
        return [values] * n
    vals = list(values)
    return vals * n if len(vals) == 1 else vals


def _expand_param_if_needed(values: Sequence[int] | int, name: str, dim: int) -> list[int]:
    """expand_param_if_needed of Convolution.cpp: one value stands for every spatial dim."""
    vals = [values] if isinstance(values, int) else list(values)
    if len(vals) == 1:
        return vals * dim
    TORCH_CHECK(
        len(vals) == dim,
        "expected ",
        name,
        " to be a single integer value or a list of ",
        dim,
        " values to match the convolution dimensions, but got ",
        name,
        "=[",
        ", ".join(str(v) for v in vals),
        "]",
    )
    return vals


_from_numpy = tensor_from_numpy  # on like's device: a CUDA convolution's result stays there


def _np(t: Tensor) -> np.ndarray:
    return np.asarray(t.contiguous().numpy_view())


def _type_name(t: Tensor) -> str:
    return CPP_TYPE_NAMES[t.scalar_type()]


@native_function(SOURCE, name="_convolution")
def _convolution(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
    benchmark: bool,
    deterministic: bool,
    cudnn_enabled: bool,
    allow_tf32: bool,
) -> Tensor:
    k = weight.dim()
    dim = k - 2
    TORCH_CHECK(dim > 0, "weight should have at least three dimensions")
    TORCH_CHECK(groups > 0, "non-positive groups is not supported")
    stride_ = _expand_param_if_needed(stride, "stride", dim)
    padding_ = _expand_param_if_needed(padding, "padding", dim)
    dilation_ = _expand_param_if_needed(dilation, "dilation", dim)
    output_padding_ = _expand_param_if_needed(output_padding, "output_padding", dim)
    _check_shape_forward(
        input, weight, bias, stride_, padding_, dilation_, groups, transposed, output_padding_
    )
    TORCH_CHECK(
        bias is None or bias.scalar_type() == input.scalar_type(),
        "Input type (",
        _type_name(input),
        ") and bias type (",
        _type_name(bias) if bias is not None else "",
        ") should be the same",
    )
    TORCH_CHECK(
        k in (3, 4, 5),
        "tensortrace implements 1D, 2D and 3D convolution only, got a ",
        k,
        "-D weight",
    )
    TORCH_CHECK(
        input.scalar_type() == weight.scalar_type(),
        "expected scalar type ",
        input.scalar_type(),
        " but found ",
        weight.scalar_type(),
    )
    if k == 5:
        return _convolution3d(
            input.contiguous(),
            weight,
            bias,
            stride_,
            padding_,
            dilation_,
            transposed,
            output_padding_,
            groups,
        )
    if k == 3:
        # view1d_as_2d: a contiguous input and the weight, each unsqueezed at dim 2
        input = input.contiguous().unsqueeze(2)
        weight = weight.unsqueeze(2)
        stride_, padding_, dilation_ = [1, *stride_], [0, *padding_], [1, *dilation_]
        output_padding_ = [0, *output_padding_]
    if transposed:
        output = _slow_conv_transpose2d(
            input, weight, bias, stride_, padding_, output_padding_, dilation_, groups
        )
        return output.squeeze(2) if k == 3 else output
    out = _conv2d_forward_kernel(
        _np(input),
        _np(weight),
        None if bias is None else _np(bias),
        stride_,
        padding_,
        dilation_,
        groups,
    )
    output = _from_numpy(out, input)
    return output.squeeze(2) if k == 3 else output


def _subtensor(t: Tensor, dim: int, groups: int, g: int) -> Tensor:
    """subtensor of Convolution.cpp: the g-th of `groups` equal slices of dim, contiguous."""
    n = t.size(dim) // groups
    return t.narrow(dim, n * g, n).contiguous()


def _convolution3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: list[int],
    padding: list[int],
    dilation: list[int],
    transposed: bool,
    output_padding: list[int],
    groups: int,
) -> Tensor:
    """select_conv_backend's 3-D fallbacks and the backends _convolution runs for them."""
    kernel_size = list(weight.sizes()[2:])
    if not transposed and not any(d != 1 for d in dilation) and not input.device().is_cuda():
        # ConvBackend::Slow3d: slow_conv3d takes the groups from the channels
        return at.slow_conv3d(input, weight, kernel_size, bias, stride, padding)

    def nogroup(i: Tensor, w: Tensor, b: Tensor | None) -> Tensor:
        if transposed:  # ConvBackend::SlowTranspose3d
            return at.slow_conv_transpose3d(
                i, w, kernel_size, b, stride, padding, output_padding, dilation
            )
        return at.slow_conv_dilated3d(i, w, kernel_size, b, stride, padding, dilation)

    weight = weight.contiguous()
    if groups == 1:
        return nogroup(input, weight, bias)
    outputs = [
        nogroup(
            _subtensor(input, 1, groups, g),
            _subtensor(weight, 0, groups, g),
            None if bias is None else _subtensor(bias, 0, groups, g),
        )
        for g in range(groups)
    ]
    return at.cat(outputs, 1)


def _slow_conv_transpose2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: list[int],
    padding: list[int],
    output_padding: list[int],
    dilation: list[int],
    groups: int,
) -> Tensor:
    """ConvBackend::SlowTranspose2d of _convolution: at::slow_conv_transpose2d, once per group
    (_convolution_nogroup_backend on each subtensor, the outputs concatenated)."""
    kernel_size = list(weight.sizes()[2:])
    if groups == 1:
        return at.slow_conv_transpose2d(
            input, weight, kernel_size, bias, stride, padding, output_padding, dilation
        )
    outputs = [
        at.slow_conv_transpose2d(
            _subtensor(input, 1, groups, g),
            _subtensor(weight, 0, groups, g),
            kernel_size,
            None if bias is None else _subtensor(bias, 0, groups, g),
            stride,
            padding,
            output_padding,
            dilation,
        )
        for g in range(groups)
    ]
    return at.cat(outputs, 1)


@native_function(SOURCE, name="convolution")
def convolution(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
) -> Tensor:
    return at._convolution(
        input,
        weight,
        bias,
        stride,
        padding,
        dilation,
        transposed,
        output_padding,
        groups,
        False,
        False,
        True,
        True,
    )


@native_function(SOURCE, name="convolution_backward")
def convolution_backward(
    grad_output: Tensor,
    input: Tensor,
    weight: Tensor,
    bias_sizes: Sequence[int] | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
    output_mask: Sequence[bool],
) -> tuple[Tensor, Tensor, Tensor]:
    dim = weight.dim() - 2
    stride_, padding_ = _expand(stride, dim), _expand(padding, dim)
    dilation_ = _expand(dilation, dim)
    if dim == 1:  # view1d_as_2d, as in _convolution
        grad_output, input, weight = (
            grad_output.unsqueeze(2),
            input.unsqueeze(2),
            weight.unsqueeze(2),
        )
        stride_, padding_, dilation_ = [1, *stride_], [0, *padding_], [1, *dilation_]
    if dim == 3:  # select_conv_backend's choice, as in _convolution
        if transposed:
            backward_kernel = conv_transpose3d_backward_kernel
        elif any(d != 1 for d in dilation_) or input.device().is_cuda():
            backward_kernel = dilated3d_backward_kernel
        else:
            backward_kernel = conv3d_backward_kernel
    else:
        backward_kernel = (
            conv_transpose2d_backward_kernel if transposed else _conv2d_backward_kernel
        )
    gi, gw, gb = backward_kernel(
        _np(grad_output), _np(input), _np(weight), stride_, padding_, dilation_, groups, output_mask
    )
    grad_input = _from_numpy(gi, input) if gi is not None else Tensor()
    grad_weight = _from_numpy(gw, weight) if gw is not None else Tensor()
    if dim == 1:
        grad_input = grad_input.squeeze(2) if gi is not None else grad_input
        grad_weight = grad_weight.squeeze(2) if gw is not None else grad_weight
    return (
        grad_input,
        grad_weight,
        _from_numpy(gb, grad_output) if gb is not None else Tensor(),
    )
