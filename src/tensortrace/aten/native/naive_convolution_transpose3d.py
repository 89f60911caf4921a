"""slow_conv_transpose3d: the transposed 3-D convolution, and its backward kernel.

Mirrors `aten/src/ATen/native/NaiveConvolutionTranspose3d.cpp`: slow_conv_transpose3d_cpu runs
slow_conv_transpose3d_shape_check and slow_conv_transpose3d_out_cpu_template (a gemm of the
weight with the input, then col2vol); the backward (slow_conv_transpose3d_backward_cpu) is the
convolution's forward for grad_input and its grad-weight for grad_weight. The data paths are the
N-d ones naive_convolution_transpose2d.py runs for the 2-D op.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten.native.convolution_mm3d import as_array, tensor_from_numpy
from tensortrace.aten.native.naive_convolution_transpose2d import (
    conv_transpose_backward_nd,
    conv_transpose_forward_nd,
    output_size,
)
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/NaiveConvolutionTranspose3d.cpp"


def _check_dim_size(t: Tensor, dim: int, dim_size: int, size: int) -> None:
    """check_dim_size of TensorUtils.cpp."""
    TORCH_CHECK(
        t.dim() == dim and t.size(dim_size) == size,
        "Expected a tensor of dimension ",
        dim,
        " and tensor.size[",
        dim_size,
        "] == ",
        size,
        " but got: dimension ",
        t.dim(),
        " and tensor.size[",
        dim_size,
        "] = ",
        t.size(dim_size) if dim_size < t.dim() else 0,
    )


def _shape_check(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    output_padding: Sequence[int],
    dilation: Sequence[int],
) -> list[int]:
    """slow_conv_transpose3d_shape_check (no grad_output); returns the output's sizes."""
    TORCH_CHECK(
        input.numel() != 0 and input.dim() in (4, 5),
        "non-empty 4D or 5D (batch mode) tensor expected for input, but got: ",
        list(input.sizes()),
    )
    sd, sh, sw = stride
    dd, dh, dw = dilation
    opd, oph, opw = output_padding
    TORCH_CHECK(
        sd > 0 and sw > 0 and sh > 0,
        "stride should be greater than zero, but got stride_depth: ",
        sd,
        " stride_height: ",
        sh,
        " stride_width: ",
        sw,
    )
    TORCH_CHECK(
        dd > 0 and dw > 0 and dh > 0,
        "dilation should be greater than zero, but got dilation_depth: ",
        dd,
        ", dilation_height: ",
        dh,
        ", dilation_width: ",
        dw,
    )
    TORCH_CHECK(
        (opd < sd or opd < dd) and (opw < sw or opw < dw) and (oph < sh or oph < dh),
        "output padding must be smaller than either stride or dilation, but got "
        "output_padding_depth: ",
        opd,
        " output_padding_height: ",
        oph,
        " output_padding_width: ",
        opw,
        " stride_depth: ",
        sd,
        " stride_height: ",
        sh,
        " stride_width: ",
        sw,
        " dilation_depth: ",
        dd,
        " dilation_height: ",
        dh,
        " dilation_width: ",
        dw,
    )
    TORCH_CHECK(
        weight.numel() != 0 and weight.dim() == 5,
        "non-empty 5D (n_output_plane x n_input_plane x kernel_depth x kernel_height x "
        "kernel_width) tensor expected for weight, but got: ",
        list(weight.sizes()),
    )
    if bias is not None:
        _check_dim_size(bias, 1, 0, weight.size(1))
    ndim = input.dim()
    dimf = 1 if ndim == 5 else 0
    _check_dim_size(input, ndim, dimf, weight.size(0))
    in_sizes = list(input.sizes()[dimf + 1 :])
    out = [
        output_size(i, k, s, p, op, d)
        for i, k, s, p, op, d in zip(
            in_sizes, kernel_size, stride, padding, output_padding, dilation
        )
    ]
    if any(o < 1 for o in out):
        TORCH_CHECK(
            False,
            "Given input size per channel: (",
            " x ".join(str(i) for i in in_sizes),
            "). Calculated output size per channel: (",
            " x ".join(str(o) for o in out),
            "). Output size is too small",
        )
    return [*input.sizes()[:dimf], weight.size(1), *out]


@traced("kernel", "at::native::(anonymous)::slow_conv_transpose3d_out_cpu_template", SOURCE)
def _conv_transpose3d_forward_kernel(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None,
    out_shape: Sequence[int],
    stride: list[int],
    padding: list[int],
    dilation: list[int],
) -> np.ndarray:
    return conv_transpose_forward_nd(x, w, b, out_shape, stride, padding, dilation)


@native_function(SOURCE)
def slow_conv_transpose3d_cpu(
    self: Tensor,
    weight: Tensor,
    kernel_size: Sequence[int],
    bias: Tensor | None = None,
    stride: Sequence[int] = (1, 1, 1),
    padding: Sequence[int] = (0, 0, 0),
    output_padding: Sequence[int] = (0, 0, 0),
    dilation: Sequence[int] = (1, 1, 1),
) -> Tensor:
    sizes = _shape_check(self, weight, bias, kernel_size, stride, padding, output_padding, dilation)
    batched = self.dim() == 5
    x = as_array(self)
    x = x if batched else x[None]
    b = None if bias is None else as_array(bias)
    shape = [x.shape[0], *sizes[-4:]]
    out = _conv_transpose3d_forward_kernel(
        x, as_array(weight), b, shape, list(stride), list(padding), list(dilation)
    )
    return tensor_from_numpy(out if batched else out[0], self)


@traced("kernel", "at::native::(anonymous)::slow_conv_transpose3d_backward_cpu", SOURCE)
def conv_transpose3d_backward_kernel(
    go: np.ndarray,
    x: np.ndarray,
    w: np.ndarray,
    stride: list[int],
    padding: list[int],
    dilation: list[int],
    groups: int,
    mask: Sequence[bool],
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """slow_conv_transpose3d_backward_out_cpu_template and
    slow_conv_transpose3d_acc_grad_parameters_cpu."""
    return conv_transpose_backward_nd(go, x, w, stride, padding, dilation, groups, mask)
