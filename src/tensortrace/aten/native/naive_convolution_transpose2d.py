"""slow_conv_transpose2d: the CPU transposed 2-D convolution, and its backward kernel.

Mirrors `aten/src/ATen/native/NaiveConvolutionTranspose2d.cpp`: the structured op's meta is
slow_conv_transpose2d_shape_check plus the output size (i - 1) * stride - 2 * padding +
dilation * (k - 1) + output_padding + 1; its impl (slow_conv_transpose2d_out_cpu_template) is a
gemm of the weight with the input followed by col2im, which is exactly the input gradient of a
convolution whose weight is this one. So the frames here run the data path of
convolution_mm2d.py with the roles swapped: the forward is the slow 2-D convolution's
grad-input frame, the backward's grad_input is that convolution's forward frame and grad_weight
its grad-weight frame (with input and grad_output swapped). Convolution.cpp's _convolution and
convolution_backward call these (groups split there, as for every slow backend).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten.native.convolution_mm2d import conv_backward_nd, conv_forward_nd
from tensortrace.aten.native.registry import impl_function, meta_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.tensor_options import TensorOptions
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/NaiveConvolutionTranspose2d.cpp"


def conv_transpose_forward_nd(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None,
    out_shape: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
) -> np.ndarray:
    """col2im(weight^T @ input): the scatter of every input pixel through the kernel, which is
    the input gradient of the convolution (ConvolutionMM2d's data path, any number of dims)."""
    shape_only = np.broadcast_to(np.zeros((), dtype=x.dtype), tuple(out_shape))
    out, _, _ = conv_backward_nd(
        x, shape_only, w, stride, padding, dilation, 1, (True, False, False)
    )
    assert out is not None
    if b is not None:
        out = out + b.reshape(1, -1, *([1] * (x.ndim - 2)))
    return out


def conv_transpose_backward_nd(
    go: np.ndarray,
    x: np.ndarray,
    w: np.ndarray,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
    mask: Sequence[bool],
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """grad_input (the convolution of grad_output with the weight), grad_weight (the
    convolution's grad-weight with input and grad_output swapped) and grad_bias."""
    gi = gw = gb = None
    spatial = tuple(range(2, x.ndim))
    if mask[0]:
        # an output_padding past the stride (allowed under the dilation) adds outputs that no
        # input pixel reaches: the convolution back sees one window more, which is no input's
        gi = conv_forward_nd(go, w, None, stride, padding, dilation, groups)
        gi = gi[(slice(None), slice(None), *(slice(0, s) for s in x.shape[2:]))]
    if mask[1]:
        _, gw, _ = conv_backward_nd(
            x, go, w, stride, padding, dilation, groups, (False, True, False)
        )
    if mask[2]:
        gb = go.sum(axis=(0, *spatial))
    return gi, gw, gb


def output_size(
    size: int, kernel: int, stride: int, padding: int, output_padding: int, dilation: int
) -> int:
    return (size - 1) * stride - 2 * padding + (dilation * (kernel - 1) + 1) + output_padding


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
    """slow_conv_transpose2d_shape_check; returns the output's sizes."""
    kh, kw = kernel_size
    sh, sw = stride
    dh, dw = dilation
    oph, opw = output_padding
    TORCH_CHECK(
        kw > 0 and kh > 0,
        "kernel size should be greater than zero, but got kernel_height: ",
        kh,
        " kernel_width: ",
        kw,
    )
    TORCH_CHECK(
        sw > 0 and sh > 0,
        "stride should be greater than zero, but got stride_height: ",
        sh,
        " stride_width: ",
        sw,
    )
    TORCH_CHECK(
        dw > 0 and dh > 0,
        "dilation should be greater than zero, but got dilation_height: ",
        dh,
        ", dilation_width: ",
        dw,
    )
    TORCH_CHECK(
        (opw < sw or opw < dw) and (oph < sh or oph < dh),
        "output padding must be smaller than either stride or dilation, but got "
        "output_padding_height: ",
        oph,
        " output_padding_width: ",
        opw,
        " stride_height: ",
        sh,
        " stride_width: ",
        sw,
        " dilation_height: ",
        dh,
        " dilation_width: ",
        dw,
    )
    TORCH_CHECK(
        weight.numel() != 0 and weight.dim() in (2, 4),
        "non-empty 2D or 4D weight tensor expected, but got: ",
        list(weight.sizes()),
    )
    ndim = input.dim()
    TORCH_CHECK(
        input.numel() != 0 and ndim in (3, 4),
        "non-empty 3D or 4D input tensor expected but got a tensor with size ",
        list(input.sizes()),
    )
    dimf = 1 if ndim == 4 else 0
    height, width = input.size(dimf + 1), input.size(dimf + 2)
    oh = output_size(height, kh, sh, padding[0], oph, dh)
    ow = output_size(width, kw, sw, padding[1], opw, dw)
    TORCH_CHECK(
        ow >= 1 and oh >= 1,
        "Given input size per channel: (",
        height,
        " x ",
        width,
        "). Calculated output size per channel: (",
        oh,
        " x ",
        ow,
        "). Output size is too small",
    )
    TORCH_CHECK(
        input.size(dimf) == weight.size(0),
        "Expected input.size(",
        dimf,
        ") == weight.size(0), but got input.size(",
        dimf,
        ") = ",
        input.size(dimf),
        " and weight.size(0) = ",
        weight.size(0),
    )
    n_out = weight.size(1)
    TORCH_CHECK(
        bias is None or (bias.dim() == 1 and bias.size(0) == n_out),
        "Expected bias to be 1-dimensional with ",
        n_out,
        " elements, but got bias of size ",
        list(bias.sizes()) if bias is not None else [],
    )
    return [*(input.size(0) for _ in range(ndim - 3)), n_out, oh, ow]


@meta_function("slow_conv_transpose2d", SOURCE)
def meta_slow_conv_transpose2d(
    it: TensorIteratorBase,
    self: Tensor,
    weight: Tensor,
    kernel_size: Sequence[int],
    bias: Tensor | None,
    stride: Sequence[int],
    padding: Sequence[int],
    output_padding: Sequence[int],
    dilation: Sequence[int],
) -> None:
    sizes = _shape_check(self, weight, bias, kernel_size, stride, padding, output_padding, dilation)
    it.set_output_raw_strided(0, sizes, (), TensorOptions(self.scalar_type(), self.device()))


@traced("kernel", "at::native::(anonymous)::slow_conv_transpose2d_out_cpu_template", SOURCE)
def _conv_transpose2d_forward_kernel(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None,
    out_shape: Sequence[int],
    stride: list[int],
    padding: list[int],
    dilation: list[int],
) -> np.ndarray:
    return conv_transpose_forward_nd(x, w, b, out_shape, stride, padding, dilation)


@impl_function("slow_conv_transpose2d_structured_cpu", SOURCE)
def slow_conv_transpose2d_structured_cpu(
    it: TensorIteratorBase,
    self: Tensor,
    weight: Tensor,
    kernel_size: Sequence[int],
    bias: Tensor | None,
    stride: Sequence[int],
    padding: Sequence[int],
    output_padding: Sequence[int],
    dilation: Sequence[int],
    out: Tensor,
) -> None:
    batched = self.dim() == 4
    x = np.asarray(self.contiguous().numpy_view())
    if not batched:
        x = x[None]
    w = np.asarray(weight.contiguous().numpy_view())
    w = w.reshape(w.shape[0], w.shape[1], kernel_size[0], kernel_size[1])
    b = None if bias is None else np.asarray(bias.contiguous().numpy_view())
    shape = [x.shape[0], *out.sizes()[-3:]]
    res = _conv_transpose2d_forward_kernel(
        x, w, b, shape, list(stride), list(padding), list(dilation)
    )
    if out.numel():
        out.numpy_view()[...] = res if batched else res[0]


@traced("kernel", "at::native::(anonymous)::slow_conv_transpose2d_backward_cpu", SOURCE)
def conv_transpose2d_backward_kernel(
    go: np.ndarray,
    x: np.ndarray,
    w: np.ndarray,
    stride: list[int],
    padding: list[int],
    dilation: list[int],
    groups: int,
    mask: Sequence[bool],
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """slow_conv_transpose2d_backward_out_cpu_template and
    slow_conv_transpose2d_acc_grad_parameters_cpu."""
    return conv_transpose_backward_nd(go, x, w, stride, padding, dilation, groups, mask)
