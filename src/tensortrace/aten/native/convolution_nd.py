"""conv1d / conv2d / conv3d and conv_transpose1d / 2d / 3d: the composites over at::convolution.

Mirrors the front of `aten/src/ATen/native/Convolution.cpp`: batchify (an unbatched input gets a
batch dim of one, which the output loses again), the 'same' / 'valid' padding strings of
_convolution_mode, and the transposed convolutions' argument order (output_padding, groups,
dilation). convolution.py holds at::convolution itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.aten import functions as at
from tensortrace.aten.native.conv_utils import _sizes
from tensortrace.aten.native.convolution import SOURCE, _expand
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK


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


def _conv(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Sequence[int],
    padding: Sequence[int] | str,
    dilation: Sequence[int],
    groups: int,
    num_spatial_dims: int,
) -> Tensor:
    """The body conv1d / 2d / 3d share (and their padding-string overloads, through
    _convolution_mode): batchify, convolve, drop the batch dim again."""
    batched, is_batched = _batchify(input, num_spatial_dims, f"conv{num_spatial_dims}d")
    if isinstance(padding, str):
        output = _convolution_mode(batched, weight, bias, stride, padding, dilation, groups)
    else:
        output = at.convolution(
            batched, weight, bias, stride, padding, dilation, False, [0], groups
        )
    return output if is_batched else output.squeeze(0)


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
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1)


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
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1)


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
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2)


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
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2)


@native_function(SOURCE, name="conv3d_symint")
def conv3d_symint(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Sequence[int] = (1,),
    padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,),
    groups: int = 1,
) -> Tensor:
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3)


@native_function(SOURCE, name="conv3d_padding_symint")
def conv3d_padding_symint(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Sequence[int] = (1,),
    padding: str = "valid",
    dilation: Sequence[int] = (1,),
    groups: int = 1,
) -> Tensor:
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3)


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


@native_function(SOURCE, name="conv_transpose3d_symint")
def conv_transpose3d_symint(
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
        input, weight, bias, stride, padding, output_padding, groups, dilation, 3
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
