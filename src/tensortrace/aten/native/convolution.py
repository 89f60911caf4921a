"""conv1d, conv2d, convolution, _convolution and convolution_backward.

Mirrors `aten/src/ATen/native/Convolution.cpp` and the checks of `ConvUtils.h`: conv1d / conv2d
(batchify of an unbatched input, the 'same' / 'valid' padding strings of `_convolution_mode`)
call at::convolution, which calls at::_convolution; convolution's derivative is
convolution_backward, which returns (grad_input, grad_weight, grad_bias) for the output_mask.
A 1-D convolution is viewed as a 2-D one (view1d_as_2d: input and weight unsqueezed at dim 2,
stride 1 / padding 0 / dilation 1 prepended, the output squeezed back), as torch does on the CPU.
The slow path of `ConvolutionMM2d.cpp` (convolution_mm2d.py) does the work; a transposed
convolution goes to at::slow_conv_transpose2d (naive_convolution_transpose2d.py), per group.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.conv_utils import _check_shape_forward, _sizes
from tensortrace.aten.native.convolution_mm2d import _conv2d_backward_kernel, _conv2d_forward_kernel
from tensortrace.aten.native.naive_convolution_transpose2d import conv_transpose2d_backward_kernel
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


def _from_numpy(arr: np.ndarray, like: Tensor) -> Tensor:
    result = at.empty(list(arr.shape), dtype=like.scalar_type(), device=like.device())
    if arr.size:
        result.numpy_view()[...] = arr
    return result


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
        k in (3, 4), "tensortrace implements 1D and 2D convolution only, got a ", k, "-D weight"
    )
    TORCH_CHECK(
        input.scalar_type() == weight.scalar_type(),
        "expected scalar type ",
        input.scalar_type(),
        " but found ",
        weight.scalar_type(),
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
    backward_kernel = conv_transpose2d_backward_kernel if transposed else _conv2d_backward_kernel
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


def _batchify(input: Tensor, num_spatial_dims: int, func_name: str) -> tuple[Tensor, bool]:
    dim_count_no_batch = num_spatial_dims + 1
    dim_count_batch = dim_count_no_batch + 1
    is_batched = input.dim() == dim_count_batch
    TORCH_CHECK(
        input.dim() == dim_count_no_batch or is_batched,
        "Expected ",
        dim_count_no_batch,
        "D (unbatched) or ",
        dim_count_batch,
        "D (batched) input to ",
        func_name,
        ", but got input of size: ",
        _sizes(input),
    )
    return (input if is_batched else input.unsqueeze(0)), is_batched


@native_function(SOURCE, name="conv1d_symint")
def conv1d_symint(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Sequence[int] = (1,),
    padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,),
    groups: int = 1,
) -> Tensor:
    batched, is_batched = _batchify(input, 1, "conv1d")
    output = at.convolution(batched, weight, bias, stride, padding, dilation, False, [0], groups)
    return output if is_batched else output.squeeze(0)


@native_function(SOURCE, name="conv1d_padding_symint")
def conv1d_padding_symint(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Sequence[int] = (1,),
    padding: str = "valid",
    dilation: Sequence[int] = (1,),
    groups: int = 1,
) -> Tensor:
    batched, is_batched = _batchify(input, 1, "conv1d")
    output = _convolution_mode(batched, weight, bias, stride, padding, dilation, groups)
    return output if is_batched else output.squeeze(0)


@native_function(SOURCE, name="conv2d_symint")
def conv2d_symint(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Sequence[int] = (1,),
    padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,),
    groups: int = 1,
) -> Tensor:
    batched, is_batched = _batchify(input, 2, "conv2d")
    output = at.convolution(batched, weight, bias, stride, padding, dilation, False, [0], groups)
    return output if is_batched else output.squeeze(0)


@native_function(SOURCE, name="conv2d_padding_symint")
def conv2d_padding_symint(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Sequence[int] = (1,),
    padding: str = "valid",
    dilation: Sequence[int] = (1,),
    groups: int = 1,
) -> Tensor:
    batched, is_batched = _batchify(input, 2, "conv2d")
    output = _convolution_mode(batched, weight, bias, stride, padding, dilation, groups)
    return output if is_batched else output.squeeze(0)


@native_function(SOURCE, name="conv_transpose1d_symint")
def conv_transpose1d_symint(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Sequence[int] = (1,),
    padding: Sequence[int] = (0,),
    output_padding: Sequence[int] = (0,),
    groups: int = 1,
    dilation: Sequence[int] = (1,),
) -> Tensor:
    return _conv_transpose(
        input, weight, bias, stride, padding, output_padding, groups, dilation, 1
    )


@native_function(SOURCE, name="conv_transpose2d_symint")
def conv_transpose2d_symint(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Sequence[int] = (1,),
    padding: Sequence[int] = (0,),
    output_padding: Sequence[int] = (0,),
    groups: int = 1,
    dilation: Sequence[int] = (1,),
) -> Tensor:
    return _conv_transpose(
        input, weight, bias, stride, padding, output_padding, groups, dilation, 2
    )


def _conv_transpose(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Sequence[int],
    padding: Sequence[int],
    output_padding: Sequence[int],
    groups: int,
    dilation: Sequence[int],
    num_spatial_dims: int,
) -> Tensor:
    func_name = f"conv_transpose{num_spatial_dims}d"
    batched, is_batched = _batchify(input, num_spatial_dims, func_name)
    output = at.convolution(
        batched, weight, bias, stride, padding, dilation, True, output_padding, groups
    )
    return output if is_batched else output.squeeze(0)


def _convolution_mode(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Sequence[int],
    padding: str,
    dilation: Sequence[int],
    groups: int,
) -> Tensor:
    dim = weight.dim() - 2
    if padding == "same":
        stride_, dilation_ = _expand(stride, dim), _expand(dilation, dim)
        TORCH_CHECK(
            all(s == 1 for s in stride_), "padding='same' is not supported for strided convolutions"
        )
        pad = [0] * dim
        extra = [0] * dim
        for i in range(dim):
            total = dilation_[i] * (weight.size(2 + i) - 1)
            pad[i] = total // 2
            extra[i] = total - 2 * pad[i]
        if any(extra):
            # torch pads the right side by the odd unit (at::constant_pad_nd); the same zeros
            # here come from a larger zero tensor that the input is copied into
            sizes = list(input.sizes())
            padded = at.zeros(
                [*sizes[:2], *(s + e for s, e in zip(sizes[2:], extra))],
                dtype=input.scalar_type(),
                device=input.device(),
            )
            region = padded
            for i in range(dim):
                region = region.narrow(2 + i, 0, sizes[2 + i])
            region.copy_(input)
            input = padded
        return at.convolution(
            input, weight, bias, stride_, pad, dilation_, False, [0] * dim, groups
        )
    if padding == "valid":
        return at.convolution(
            input, weight, bias, stride, [0] * dim, dilation, False, [0] * dim, groups
        )
    TORCH_CHECK(False, "Invalid padding string: '", padding, "'")
    raise AssertionError  # unreachable
