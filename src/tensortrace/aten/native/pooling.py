"""max_pool2d (with indices), avg_pool2d and their backwards; the 1-D pools over them.

Mirrors `aten/src/ATen/native/Pooling.cpp` (max_pool2d calls max_pool2d_with_indices and keeps
the values; max_pool1d_with_indices, avg_pool1d and adaptive_avg_pool1d unsqueeze the input at
dim -2, call the 2-D op with a kernel of height 1 and squeeze the result), `DilatedMaxPool2d.cpp`,
`AveragePool2d.cpp` and the shape checks of `Pool.h` (pooling_output_shape, pool2d_shape_check).
The loops of the CPU kernels (`cpu/MaxPoolKernel.cpp`, `cpu/AvgPoolKernel.cpp`) run over the
output positions, each vectorized over batch and channels in NumPy. Indices are flat offsets
into each input plane (h * W + w), as torch's. adaptive_avg_pool2d is in
adaptive_average_pooling.py, max_pool1d's direct CPU path in max_pooling.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

MAX2D = "aten/src/ATen/native/DilatedMaxPool2d.cpp"
AVG2D = "aten/src/ATen/native/AveragePool2d.cpp"
POOLING = "aten/src/ATen/native/Pooling.cpp"


def _pair_arg(values: Sequence[int], op: str, name: str, allow_empty: bool) -> tuple[int, int]:
    vals = list(values)
    if allow_empty:
        TORCH_CHECK(
            len(vals) in (0, 1, 2),
            op,
            ": ",
            name,
            " must either be omitted, a single int, or a tuple of two ints",
        )
    else:
        TORCH_CHECK(
            len(vals) in (1, 2),
            op,
            ": ",
            name,
            " must either be a single int, or a tuple of two ints",
        )
    if len(vals) == 1:
        return vals[0], vals[0]
    return vals[0], vals[1]


def pooling_output_shape(
    input_size: int, kernel: int, pad: int, stride: int, dilation: int, ceil_mode: bool
) -> int:
    """Pool.h's pooling_output_shape_pad_lr."""
    TORCH_CHECK(stride != 0, "stride should not be zero")
    TORCH_CHECK(pad >= 0, "pad must be non-negative, but got pad: ", pad)
    TORCH_CHECK(
        pad <= ((kernel - 1) * dilation + 1) // 2,
        "pad should be at most half of effective kernel size, but got pad=",
        pad,
        ", kernel_size=",
        kernel,
        " and dilation=",
        dilation,
    )
    num = input_size + 2 * pad - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = num // stride + 1
    if ceil_mode and (out - 1) * stride >= input_size + pad:
        out -= 1
    return out


def _params(
    self: Tensor,
    op: str,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil_mode: bool,
) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int], tuple[int, int], tuple[int, int]]:
    k = _pair_arg(kernel_size, op, "kernel_size", False)
    s = _pair_arg(stride, op, "stride", True) if list(stride) else k
    p = _pair_arg(padding, op, "padding", False)
    d = _pair_arg(dilation, op, "dilation", False)
    ndim = self.dim()
    TORCH_CHECK(ndim in (3, 4), "non-empty 3D or 4D (batch mode) tensor expected for input")
    h, w = self.size(-2), self.size(-1)
    oh = pooling_output_shape(h, k[0], p[0], s[0], d[0], ceil_mode)
    ow = pooling_output_shape(w, k[1], p[1], s[1], d[1], ceil_mode)
    _pool2d_shape_check(self, k, s, p, d, oh, ow)
    return k, s, p, d, (oh, ow)


def _pool2d_shape_check(
    self: Tensor,
    k: tuple[int, int],
    s: tuple[int, int],
    p: tuple[int, int],
    d: tuple[int, int],
    oh: int,
    ow: int,
) -> None:
    TORCH_CHECK(
        k[1] > 0 and k[0] > 0,
        "kernel size should be greater than zero, but got kH: ",
        k[0],
        " kW: ",
        k[1],
    )
    TORCH_CHECK(
        s[1] > 0 and s[0] > 0,
        "stride should be greater than zero, but got dH: ",
        s[0],
        " dW: ",
        s[1],
    )
    TORCH_CHECK(
        d[1] > 0 and d[0] > 0,
        "dilation should be greater than zero, but got dilationH: ",
        d[0],
        " dilationW: ",
        d[1],
    )
    TORCH_CHECK(
        k[1] // 2 >= p[1] and k[0] // 2 >= p[0],
        "pad should be smaller than or equal to half of kernel size, but got padW = ",
        p[1],
        ", padH = ",
        p[0],
        ", kW = ",
        k[1],
        ", kH = ",
        k[0],
    )
    c, h, w = self.size(-3), self.size(-2), self.size(-1)
    TORCH_CHECK(
        ow >= 1 and oh >= 1,
        "Given input size: (",
        c,
        "x",
        h,
        "x",
        w,
        "). Calculated output size: (",
        c,
        "x",
        oh,
        "x",
        ow,
        "). Output size is too small",
    )


def _planes(self: Tensor) -> np.ndarray:
    arr = np.asarray(self.contiguous().numpy_view())
    return arr.reshape(-1, arr.shape[-2], arr.shape[-1])


def _from_numpy(arr: np.ndarray, shape: Sequence[int], dtype: ScalarType, like: Tensor) -> Tensor:
    """A new tensor on like's device (a pool on the emulated CUDA device stays there)."""
    result = at.empty(list(shape), dtype=dtype, device=like.device())
    if arr.size:
        result.numpy_view()[...] = arr.reshape(list(shape))
    return result


def _window(o: int, stride: int, pad: int, kernel: int, dil: int, size: int) -> list[int]:
    start = o * stride - pad
    return [start + i * dil for i in range(kernel) if 0 <= start + i * dil < size]


@traced(
    "kernel",
    "at::native::(anonymous)::cpu_max_pool",
    "aten/src/ATen/native/cpu/MaxPoolKernel.cpp",
    legacy="cpu_max_pool",
)
def _max_pool_kernel(
    x: np.ndarray,
    k: tuple[int, int],
    s: tuple[int, int],
    p: tuple[int, int],
    d: tuple[int, int],
    oh: int,
    ow: int,
) -> tuple[np.ndarray, np.ndarray]:
    n, h, w = x.shape
    out = np.empty((n, oh, ow), dtype=x.dtype)
    idx = np.empty((n, oh, ow), dtype=np.int64)
    for i in range(oh):
        rows = _window(i, s[0], p[0], k[0], d[0], h)
        for j in range(ow):
            cols = _window(j, s[1], p[1], k[1], d[1], w)
            flat = np.array([r * w + c for r in rows for c in cols], dtype=np.int64)
            vals = x.reshape(n, -1)[:, flat]
            # torch keeps the first maximum, and a NaN wins (val > max || isnan(val))
            nan = np.isnan(vals) if vals.dtype.kind == "f" else np.zeros(vals.shape, bool)
            pos = np.where(
                nan.any(axis=1),
                nan[:, ::-1].argmax(axis=1) * -1 + len(flat) - 1,
                vals.argmax(axis=1),
            )
            idx[:, i, j] = flat[pos]
            out[:, i, j] = vals[np.arange(n), pos]
    return out, idx


@native_function(MAX2D, name="max_pool2d_with_indices")
def max_pool2d_with_indices(
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int] = (),
    padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,),
    ceil_mode: bool = False,
) -> tuple[Tensor, Tensor]:
    k, s, p, d, (oh, ow) = _params(
        self, "max_pool2d", kernel_size, stride, padding, dilation, ceil_mode
    )
    shape = [*self.sizes()[:-2], oh, ow]
    if self.is_meta():  # Note [A meta tensor's kernel is no call]
        return self.new_empty(shape), self.new_empty(shape, dtype=ScalarType.Long)
    out, idx = _max_pool_kernel(_planes(self), k, s, p, d, oh, ow)
    return (
        _from_numpy(out, shape, self.scalar_type(), self),
        _from_numpy(idx, shape, ScalarType.Long, self),
    )


@native_function(MAX2D, name="max_pool2d_with_indices_backward")
def max_pool2d_with_indices_backward(
    grad_output: Tensor,
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil_mode: bool,
    indices: Tensor,
) -> Tensor:
    if grad_output.is_meta():  # Note [A meta tensor's kernel is no call]
        return grad_output.new_empty(list(self.sizes()))
    planes = _planes(self)
    go = _planes(grad_output)
    idx = _planes(indices)
    n, h, w = planes.shape
    grad = np.zeros((n, h * w), dtype=go.dtype)
    np.add.at(grad, (np.arange(n)[:, None], idx.reshape(n, -1)), go.reshape(n, -1))
    return _from_numpy(grad, list(self.sizes()), grad_output.scalar_type(), grad_output)


@native_function(POOLING, name="max_pool2d")
def max_pool2d(
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int] = (),
    padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,),
    ceil_mode: bool = False,
) -> Tensor:
    output_and_indices = at.max_pool2d_with_indices(
        self, kernel_size, stride, padding, dilation, ceil_mode
    )
    return output_and_indices[0]


def _avg_divisors(
    h: int,
    w: int,
    k: tuple[int, int],
    s: tuple[int, int],
    p: tuple[int, int],
    oh: int,
    ow: int,
    count_include_pad: bool,
    divisor_override: int | None,
) -> list[tuple[slice, slice, int]]:
    """Per output (i, j): the clipped window and its divisor, as cpu_avg_pool computes them."""
    result = []
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * s[0] - p[0], j * s[1] - p[1]
            h1, w1 = min(h0 + k[0], h + p[0]), min(w0 + k[1], w + p[1])
            pool_size = (h1 - h0) * (w1 - w0)
            h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, h), min(w1, w)
            if divisor_override is not None:
                div = divisor_override
            elif count_include_pad:
                div = pool_size
            else:
                div = (h1 - h0) * (w1 - w0)
            result.append((slice(h0, h1), slice(w0, w1), div))
    return result


@traced(
    "kernel",
    "at::native::(anonymous)::cpu_avg_pool2d",
    "aten/src/ATen/native/cpu/AvgPoolKernel.cpp",
    legacy="cpu_avg_pool2d",
)
def _avg_pool_kernel(
    x: np.ndarray, windows: list[tuple[slice, slice, int]], oh: int, ow: int
) -> np.ndarray:
    n = x.shape[0]
    out = np.empty((n, oh * ow), dtype=x.dtype)
    for q, (rs, cs, div) in enumerate(windows):
        out[:, q] = (
            x[:, rs, cs].sum(axis=(1, 2)) / x.dtype.type(div)
            if x.dtype.kind == "f"
            else x[:, rs, cs].sum(axis=(1, 2)) // div
        )
    return out


@native_function(AVG2D, name="avg_pool2d")
def avg_pool2d(
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int] = (),
    padding: Sequence[int] = (0,),
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    TORCH_CHECK(divisor_override is None or divisor_override != 0, "divisor must be not zero")
    k, s, p, _, (oh, ow) = _params(self, "avg_pool2d", kernel_size, stride, padding, [1], ceil_mode)
    if self.is_meta():  # Note [A meta tensor's kernel is no call]
        return self.new_empty([*self.sizes()[:-2], oh, ow])
    windows = _avg_divisors(
        self.size(-2), self.size(-1), k, s, p, oh, ow, count_include_pad, divisor_override
    )
    out = _avg_pool_kernel(_planes(self), windows, oh, ow)
    return _from_numpy(out, [*self.sizes()[:-2], oh, ow], self.scalar_type(), self)


@native_function(AVG2D, name="avg_pool2d_backward")
def avg_pool2d_backward(
    grad_output: Tensor,
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: int | None,
) -> Tensor:
    k, s, p, _, (oh, ow) = _params(self, "avg_pool2d", kernel_size, stride, padding, [1], ceil_mode)
    if grad_output.is_meta():  # Note [A meta tensor's kernel is no call]
        return grad_output.new_empty(list(self.sizes()))
    windows = _avg_divisors(
        self.size(-2), self.size(-1), k, s, p, oh, ow, count_include_pad, divisor_override
    )
    go = _planes(grad_output).reshape(-1, oh * ow)
    grad = np.zeros((go.shape[0], self.size(-2), self.size(-1)), dtype=go.dtype)
    for q, (rs, cs, div) in enumerate(windows):
        grad[:, rs, cs] += (go[:, q] / go.dtype.type(div))[:, None, None]
    return _from_numpy(grad, list(self.sizes()), grad_output.scalar_type(), grad_output)


def check_dim_range(op: str, t: Tensor, dim_start: int, dim_end: int) -> None:
    """checkDimRange of TensorUtils.cpp (dim_end exclusive) for argument #1 'self'."""
    TORCH_CHECK(
        dim_start <= t.dim() < dim_end,
        "Expected ",
        dim_start,
        " to ",
        dim_end - 1,
        " dimensions, but got ",
        t.dim(),
        "-dimensional tensor for argument #1 'self' (while checking arguments for ",
        op,
        ")",
    )


def check1d(function_name: str, argument_name: str, x: Sequence[int]) -> None:
    TORCH_CHECK(
        len(x) == 1,
        function_name,
        "() argument '",
        argument_name,
        "' should contain one int (got ",
        len(x),
        ")",
    )


@native_function(POOLING, name="adaptive_avg_pool1d")
def adaptive_avg_pool1d(self: Tensor, output_size: Sequence[int]) -> Tensor:
    check_dim_range("adaptive_avg_pool1d", self, 2, 4)
    check1d("adaptive_avg_pool1d", "output_size", output_size)
    output = at.adaptive_avg_pool2d(self.unsqueeze(-2), [1, output_size[0]])
    return output.squeeze(-2)


@native_function(POOLING, name="adaptive_max_pool1d")
def adaptive_max_pool1d(self: Tensor, output_size: Sequence[int]) -> tuple[Tensor, Tensor]:
    check_dim_range("adaptive_max_pool1d", self, 2, 4)
    for i in range(1, self.dim()):
        TORCH_CHECK(
            self.size(i) > 0,
            "adaptive_max_pool1d(): Expected input to have non-zero size for non-batch "
            "dimensions, but input has sizes [",
            ", ".join(str(s) for s in self.sizes()),
            "] with dimension ",
            i,
            " being empty",
        )
    check1d("adaptive_max_pool1d", "output_size", output_size)
    output, indices = at.adaptive_max_pool2d(self.unsqueeze(-2), [1, output_size[0]])
    return output.squeeze(-2), indices.squeeze(-2)


@native_function(POOLING, name="max_pool1d_with_indices")
def max_pool1d_with_indices(
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int] = (),
    padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,),
    ceil_mode: bool = False,
) -> tuple[Tensor, Tensor]:
    if not list(stride):
        stride = kernel_size
    check_dim_range("max_pool1d", self, 2, 4)
    check1d("max_pool1d", "kernel_size", kernel_size)
    check1d("max_pool1d", "stride", stride)
    check1d("max_pool1d", "padding", padding)
    check1d("max_pool1d", "dilation", dilation)
    output, indices = at.max_pool2d_with_indices(
        self.unsqueeze(-2),
        [1, kernel_size[0]],
        [1, stride[0]],
        [0, padding[0]],
        [1, dilation[0]],
        ceil_mode,
    )
    return output.squeeze(-2), indices.squeeze(-2)


@native_function(POOLING, name="avg_pool1d")
def avg_pool1d(
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int] = (),
    padding: Sequence[int] = (0,),
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    if not list(stride):
        stride = kernel_size
    check_dim_range("avg_pool1d", self, 2, 4)
    check1d("avg_pool1d", "kernel_size", kernel_size)
    check1d("avg_pool1d", "stride", stride)
    check1d("avg_pool1d", "padding", padding)
    output = at.avg_pool2d(
        self.unsqueeze(-2),
        [1, kernel_size[0]],
        [1, stride[0]],
        [0, padding[0]],
        ceil_mode,
        count_include_pad,
    )
    return output.squeeze(-2)
