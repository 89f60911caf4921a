"""slow_conv3d: the CPU 3-D convolution (no dilation), and its backward frame.

Mirrors `aten/src/ATen/native/ConvolutionMM3d.cpp`: slow_conv3d (CompositeImplicitAutograd)
calls slow_conv3d_forward, whose slow_conv3d_forward_out_cpu runs slow_conv3d_shape_check and
one vol2col + gemm frame per group (slow_conv3d_update_output_frame); it takes the groups from
the channels (input.size(1) / weight.size(1)), so Convolution.cpp hands it a grouped convolution
whole. convolution_backward calls slow_conv3d_backward_cpu. The data path is the N-d one of
convolution_mm2d.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.convolution_mm2d import conv_backward_nd, conv_forward_nd
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/ConvolutionMM3d.cpp"


def tensor_from_numpy(arr: np.ndarray, like: Tensor) -> Tensor:
    """A new tensor of like's dtype and device holding arr."""
    result = at.empty(list(arr.shape), dtype=like.scalar_type(), device=like.device())
    if arr.size:
        result.numpy_view()[...] = arr
    return result


def as_array(t: Tensor) -> np.ndarray:
    return np.asarray(t.contiguous().numpy_view())


def _slow_conv3d_shape_check(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
) -> None:
    """slow_conv3d_shape_check (the forward's part: weight_optional false, groups from weight)."""
    kt, kh, kw = kernel_size
    TORCH_CHECK(
        kt > 0 and kw > 0 and kh > 0,
        "kernel size should be greater than zero, but got: ",
        kt,
        " x ",
        kh,
        " x ",
        kw,
        " (TxHxW)",
    )
    TORCH_CHECK(
        all(s > 0 for s in stride),
        "stride should be greater than zero, but got: ",
        " x ".join(str(s) for s in stride),
        " (TxHxW)",
    )
    TORCH_CHECK(
        weight.dim() == 5,
        "Expected 5D tensor for weight, but got ",
        weight.dim(),
        "D tensor",
    )
    ndim = input.dim()
    TORCH_CHECK(
        ndim in (4, 5) and all(s != 0 for s in input.sizes()[ndim - 4 :]),
        "Expected 4D or 5D (batch mode) tensor for input with possibly 0 batch size and "
        "non-zero dimensions for input, but got: ",
        list(input.sizes()),
    )
    TORCH_CHECK(
        bias is None or (bias.dim() == 1 and bias.size(0) == weight.size(0)),
        "Expected bias to be 1-dimensional with ",
        weight.size(0),
        " elements, but got bias of size ",
        list(bias.sizes()) if bias is not None else [],
    )


@traced("kernel", "at::native::(anonymous)::slow_conv3d_update_output_frame", SOURCE)
def _conv3d_forward_kernel(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None,
    stride: list[int],
    padding: list[int],
    groups: int,
) -> np.ndarray:
    return conv_forward_nd(x, w, b, stride, padding, [1, 1, 1], groups)


@native_function(SOURCE)
def slow_conv3d_forward_cpu(
    self: Tensor,
    weight: Tensor,
    kernel_size: Sequence[int],
    bias: Tensor | None,
    stride: Sequence[int],
    padding: Sequence[int],
) -> Tensor:
    _slow_conv3d_shape_check(self, weight, bias, kernel_size, stride, padding)
    batched = self.dim() == 5
    x = as_array(self)
    x = x if batched else x[None]
    w = as_array(weight).reshape(weight.size(0), -1, *kernel_size)
    groups = x.shape[1] // w.shape[1]
    b = None if bias is None else as_array(bias)
    out = _conv3d_forward_kernel(x, w, b, list(stride), list(padding), groups)
    return tensor_from_numpy(out if batched else out[0], self)


@native_function(SOURCE)
def slow_conv3d(
    self: Tensor,
    weight: Tensor,
    kernel_size: Sequence[int],
    bias: Tensor | None = None,
    stride: Sequence[int] = (1, 1, 1),
    padding: Sequence[int] = (0, 0, 0),
) -> Tensor:
    return at.slow_conv3d_forward(self, weight, kernel_size, bias, stride, padding)


@traced("kernel", "at::native::slow_conv3d_backward_cpu", SOURCE)
def conv3d_backward_kernel(
    go: np.ndarray,
    x: np.ndarray,
    w: np.ndarray,
    stride: list[int],
    padding: list[int],
    dilation: list[int],
    groups: int,
    mask: Sequence[bool],
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """slow_conv3d_backward_out_cpu_template and slow_conv3d_backward_parameters_out_cpu."""
    return conv_backward_nd(go, x, w, stride, padding, dilation, groups, mask)
