"""slow_conv_dilated3d: the dilated 3-D convolution (and the CUDA path of every 3-D one).

Mirrors `aten/src/ATen/native/NaiveDilatedConvolution.cpp`: slow_conv_dilated3d_cpu
(slow_conv_dilated_shape_check, then slow_conv_dilated_all_cpu_template: vol2col + gemm per
batch element, the bias added first) and its backward stub (slow_conv_dilated3d_backward_cpu).
Convolution.cpp calls it once per group; the data path is the N-d one of convolution_mm2d.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten.native.convolution_mm2d import conv_backward_nd, conv_forward_nd
from tensortrace.aten.native.convolution_mm3d import as_array, tensor_from_numpy
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/NaiveDilatedConvolution.cpp"


def _shape_check(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
) -> None:
    """slow_conv_dilated_shape_check, the forward's checks."""
    dim = len(kernel_size)
    TORCH_CHECK(
        len(stride) == dim and len(padding) == dim and len(dilation) == dim,
        "kernel sizes length (",
        dim,
        ") must match with stride, padding and dilation sizes",
    )
    TORCH_CHECK(all(k > 0 for k in kernel_size), "kernel size should be greater than zero")
    TORCH_CHECK(all(s > 0 for s in stride), "stride should be greater than zero")
    TORCH_CHECK(all(d > 0 for d in dilation), "dilation should be greater than zero")
    TORCH_CHECK(
        weight.dim() == dim + 2,
        "weight must be ",
        dim + 2,
        "D tensor but got ",
        weight.dim(),
        "D tensor dim=",
        dim,
    )
    TORCH_CHECK(
        list(weight.sizes()[2:]) == list(kernel_size),
        "weight[2:] shape ",
        list(weight.sizes()[2:]),
        " must be equal to kernel_size ",
        list(kernel_size),
    )
    TORCH_CHECK(
        input.dim() in (dim + 1, dim + 2),
        "input must be ",
        dim + 1,
        "D or ",
        dim + 2,
        "D tensor but got ",
        input.dim(),
        "D tensor",
    )
    channels = input.size(input.dim() - dim - 1)
    TORCH_CHECK(
        channels == weight.size(1),
        "input.size(",
        input.dim() - dim - 1,
        ") must be equal to weight.size(1) but got ",
        channels,
        " vs ",
        weight.size(1),
    )
    TORCH_CHECK(
        bias is None or (bias.dim() == 1 and bias.size(0) == weight.size(0)),
        "bias must be 1D with ",
        weight.size(0),
        " elements",
    )


@traced("kernel", "at::native::(anonymous)::slow_conv_dilated_all_cpu_template", SOURCE)
def _dilated_forward_kernel(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None,
    stride: list[int],
    padding: list[int],
    dilation: list[int],
) -> np.ndarray:
    return conv_forward_nd(x, w, b, stride, padding, dilation, 1)


@native_function(SOURCE)
def slow_conv_dilated3d_cpu(
    self: Tensor,
    weight: Tensor,
    kernel_size: Sequence[int],
    bias: Tensor | None = None,
    stride: Sequence[int] = (1, 1, 1),
    padding: Sequence[int] = (0, 0, 0),
    dilation: Sequence[int] = (1, 1, 1),
) -> Tensor:
    _shape_check(self, weight, bias, kernel_size, stride, padding, dilation)
    batched = self.dim() == 5
    x = as_array(self)
    x = x if batched else x[None]
    b = None if bias is None else as_array(bias)
    out = _dilated_forward_kernel(
        x, as_array(weight), b, list(stride), list(padding), list(dilation)
    )
    return tensor_from_numpy(out if batched else out[0], self)


@traced("kernel", "at::native::(anonymous)::slow_conv_dilated3d_backward_cpu", SOURCE)
def dilated3d_backward_kernel(
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
