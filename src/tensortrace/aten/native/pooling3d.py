"""max_pool3d (with indices), avg_pool3d and their backwards.

Mirrors `aten/src/ATen/native/DilatedMaxPool3d.cpp` (max_pool3d_with_indices_out_cpu_template's
argument checks, then Pool.h's pooling_output_shape and pool3d_shape_check),
`AveragePool3d.cpp` (the structured meta's checks; pool3d_shape_check with check_input_size)
and `Pooling.cpp`'s max_pool3d, which keeps the values of max_pool3d_with_indices. The loops
of `cpu/MaxPoolKernel.cpp` (cpu_max_pool3d) and `cpu/AvgPoolKernel.cpp` (cpu_avg_pool3d) run
over the output positions, each vectorized over batch and channels in NumPy. Indices are flat
offsets into each input volume (t * H * W + h * W + w), as torch's.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.pooling import pooling_output_shape
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import ScalarType
from tensortrace.trace import traced

MAX3D = "aten/src/ATen/native/DilatedMaxPool3d.cpp"
AVG3D = "aten/src/ATen/native/AveragePool3d.cpp"
POOLING = "aten/src/ATen/native/Pooling.cpp"
Triple = tuple[int, int, int]


def _triple(values: Sequence[int], ok: bool, message: str) -> Triple:
    TORCH_CHECK(ok, message)
    vals = list(values)
    if not vals:  # an omitted stride: the caller takes the kernel size
        return (0, 0, 0)
    return (vals[0],) * 3 if len(vals) == 1 else (vals[0], vals[1], vals[2])


def _sizes(t: Tensor) -> str:
    return "[" + ", ".join(str(s) for s in t.sizes()) + "]"


def pool3d_shape_check(
    input: Tensor,
    k: Triple,
    s: Triple,
    p: Triple,
    d: Triple,
    out: Triple,
    fn_name: str,
    check_input_size: bool = False,
) -> None:
    """Pool.h's pool3d_shape_check."""
    TORCH_CHECK(
        all(x > 0 for x in k),
        "kernel size should be greater than zero, but got kT: ",
        k[0],
        " kH: ",
        k[1],
        " kW: ",
        k[2],
    )
    TORCH_CHECK(
        all(x > 0 for x in s),
        "stride should be greater than zero, but got dT: ",
        s[0],
        " dH: ",
        s[1],
        " dW: ",
        s[2],
    )
    TORCH_CHECK(
        all(x > 0 for x in d),
        "dilation should be greater than zero, but got dilationT: ",
        d[0],
        " dilationH: ",
        d[1],
        " dilationW: ",
        d[2],
    )
    ndim = input.dim()
    TORCH_CHECK(
        ndim in (4, 5), fn_name, ": Expected 4D or 5D tensor for input, but got: ", _sizes(input)
    )
    for i in range(1 if ndim == 5 else 0, ndim):  # the batch dim may be 0
        TORCH_CHECK(
            input.size(i) > 0,
            fn_name,
            ": Expected input's non-batch dimensions to have positive length, but input has a "
            "shape of ",
            _sizes(input),
            " and non-batch dimension ",
            input.size(i),
            " has length zero!",
        )
    it, ih, iw = input.sizes()[-3:]
    if check_input_size:  # AveragePool3d
        TORCH_CHECK(
            it >= k[0] and ih >= k[1] and iw >= k[2],
            "input image (T: ",
            it,
            " H: ",
            ih,
            " W: ",
            iw,
            ") smaller than kernel size (kT: ",
            k[0],
            " kH: ",
            k[1],
            " kW: ",
            k[2],
            ")",
        )
    TORCH_CHECK(
        k[0] // 2 >= p[0] and k[2] // 2 >= p[2] and k[1] // 2 >= p[1],
        "pad should be smaller than or equal to half of kernel size, but got kT: ",
        k[0],
        " kW: ",
        k[2],
        " kH: ",
        k[1],
        " padT: ",
        p[0],
        " padW: ",
        p[2],
        " padH: ",
        p[1],
    )
    nslices = input.size(-4)
    TORCH_CHECK(
        all(o >= 1 for o in out),
        f"Given input size: ({nslices}x{it}x{ih}x{iw}). Calculated output size: "
        f"({nslices}x{out[0]}x{out[1]}x{out[2]}). Output size is too small",
    )


def _output_sizes(input: Tensor, k: Triple, s: Triple, p: Triple, d: Triple, ceil: bool) -> Triple:
    t, h, w = (
        pooling_output_shape(input.size(-3 + i), k[i], p[i], s[i], d[i], ceil) for i in range(3)
    )
    return t, h, w


def _max_params(
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil_mode: bool,
) -> tuple[Triple, Triple, Triple, Triple, Triple]:
    """max_pool3d_with_indices_out_cpu_template's checks; (k, s, p, d, output sizes)."""
    k = _triple(
        kernel_size,
        len(kernel_size) in (1, 3),
        "max_pool3d: kernel_size must either be a single int, or a tuple of three ints",
    )
    s = _triple(
        stride,
        len(stride) in (0, 1, 3),
        "max_pool3d: stride must either be omitted, a single int, or a tuple of three ints",
    )
    s = s if len(stride) else k
    p = _triple(
        padding,
        len(padding) in (1, 3),
        "max_pool3d: padding must either be a single int, or a tuple of three ints",
    )
    d = _triple(
        dilation,
        len(dilation) in (1, 3),
        "max_pool3d: dilation must be either a single int, or a tuple of three ints",
    )
    TORCH_CHECK(self.dim() in (4, 5), "non-empty 4D or 5D (batch mode) tensor expected for input")
    out = _output_sizes(self, k, s, p, d, ceil_mode)
    pool3d_shape_check(self, k, s, p, d, out, "max_pool3d_with_indices_out_cpu_template()")
    return k, s, p, d, out


def _volumes(t: Tensor) -> np.ndarray:
    arr = np.asarray(t.contiguous().numpy_view())
    return arr.reshape(-1, *arr.shape[-3:])


def _from_numpy(arr: np.ndarray, shape: Sequence[int], dtype: ScalarType, like: Tensor) -> Tensor:
    result = at.empty(list(shape), dtype=dtype, device=like.device())
    if arr.size:
        result.numpy_view()[...] = arr.reshape(list(shape))
    return result


def _taps(o: int, s: int, p: int, k: int, d: int, size: int) -> np.ndarray:
    """The input positions of output o's window that lie inside the input."""
    pos = o * s - p + d * np.arange(k)
    return pos[(pos >= 0) & (pos < size)]


@traced(
    "kernel",
    "at::native::(anonymous)::cpu_max_pool3d",
    "aten/src/ATen/native/cpu/MaxPoolKernel.cpp",
)
def _max_pool3d_kernel(
    x: np.ndarray, k: Triple, s: Triple, p: Triple, d: Triple, out_sizes: Triple
) -> tuple[np.ndarray, np.ndarray]:
    n, *in_sizes = x.shape
    strides = (in_sizes[1] * in_sizes[2], in_sizes[2], 1)
    out = np.empty((n, *out_sizes), dtype=x.dtype)
    idx = np.empty((n, *out_sizes), dtype=np.int64)
    flat_x = x.reshape(n, -1)
    rows = np.arange(n)
    for o in itertools.product(*(range(size) for size in out_sizes)):
        at_o: tuple[Any, ...] = (slice(None), *o)
        taps = [_taps(o[i], s[i], p[i], k[i], d[i], in_sizes[i]) * strides[i] for i in range(3)]
        flat = (taps[0][:, None, None] + taps[1][None, :, None] + taps[2][None, None, :]).ravel()
        vals = flat_x[:, flat]
        # torch keeps the first maximum, and a NaN wins (val > max || isnan(val))
        pos = vals.argmax(axis=1)
        if vals.dtype.kind == "f":
            nan = np.isnan(vals)
            last_nan = nan.shape[1] - 1 - nan[:, ::-1].argmax(axis=1)
            pos = np.where(nan.any(axis=1), last_nan, pos)
        idx[at_o] = flat[pos]
        out[at_o] = vals[rows, pos]
    return out, idx


@native_function(MAX3D)
def max_pool3d_with_indices_cpu(
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int] = (),
    padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,),
    ceil_mode: bool = False,
) -> tuple[Tensor, Tensor]:
    k, s, p, d, out_sizes = _max_params(self, kernel_size, stride, padding, dilation, ceil_mode)
    shape = [*self.sizes()[:-3], *out_sizes]
    out, idx = _max_pool3d_kernel(_volumes(self), k, s, p, d, out_sizes)
    return (
        _from_numpy(out, shape, self.scalar_type(), self),
        _from_numpy(idx, shape, ScalarType.Long, self),
    )


@traced(
    "kernel",
    "at::native::(anonymous)::cpu_max_pool3d_backward",
    "aten/src/ATen/native/cpu/MaxPoolKernel.cpp",
)
def _max_pool3d_backward_kernel(
    go: np.ndarray, idx: np.ndarray, in_sizes: Sequence[int]
) -> np.ndarray:
    n = go.shape[0]
    grad = np.zeros((n, int(np.prod(in_sizes))), dtype=go.dtype)
    np.add.at(grad, (np.arange(n)[:, None], idx.reshape(n, -1)), go.reshape(n, -1))
    return grad


@native_function(MAX3D)
def max_pool3d_with_indices_backward_cpu(
    grad_output: Tensor,
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil_mode: bool,
    indices: Tensor,
) -> Tensor:
    _max_params(self, kernel_size, stride, padding, dilation, ceil_mode)
    grad = _max_pool3d_backward_kernel(
        _volumes(grad_output), _volumes(indices), list(self.sizes()[-3:])
    )
    return _from_numpy(grad, list(self.sizes()), grad_output.scalar_type(), grad_output)


@native_function(POOLING)
def max_pool3d(
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int] = (),
    padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,),
    ceil_mode: bool = False,
) -> Tensor:
    output_and_indices = at.max_pool3d_with_indices(
        self, kernel_size, stride, padding, dilation, ceil_mode
    )
    return output_and_indices[0]  # type: ignore[no-any-return]


def _avg_params(
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    ceil_mode: bool,
    divisor_override: int | None,
) -> tuple[Triple, Triple, Triple, Triple]:
    """The checks of avg_pool3d's meta function; (k, s, p, output sizes)."""
    k = _triple(
        kernel_size,
        len(kernel_size) in (1, 3),
        "avg_pool3d: kernel_size must be a single int, or a tuple of three ints",
    )
    s = _triple(
        stride,
        len(stride) in (0, 1, 3),
        "avg_pool3d: stride must be omitted, a single int, or a tuple of three ints",
    )
    s = s if len(stride) else k
    p = _triple(
        padding,
        len(padding) in (1, 3),
        "avg_pool3d: padding must be a single int, or a tuple of three ints",
    )
    TORCH_CHECK(self.dim() in (4, 5), "non-empty 4D or 5D (batch mode) tensor expected for input")
    TORCH_CHECK(divisor_override is None or divisor_override != 0, "divisor must be not zero")
    out = _output_sizes(self, k, s, p, (1, 1, 1), ceil_mode)
    pool3d_shape_check(self, k, s, p, (1, 1, 1), out, "avg_pool3d()", True)
    return k, s, p, out


def _avg_windows(
    in_sizes: Sequence[int],
    k: Triple,
    s: Triple,
    p: Triple,
    out_sizes: Triple,
    count_include_pad: bool,
    divisor_override: int | None,
) -> list[tuple[tuple[slice, ...], int]]:
    """Per output position (row-major): the clipped window and its divisor, as cpu_avg_pool3d."""
    result = []
    for o in itertools.product(*(range(size) for size in out_sizes)):
        start = [o[i] * s[i] - p[i] for i in range(3)]
        end = [min(start[i] + k[i], in_sizes[i] + p[i]) for i in range(3)]
        pool_size = int(np.prod([end[i] - start[i] for i in range(3)]))
        start = [max(x, 0) for x in start]
        end = [min(end[i], in_sizes[i]) for i in range(3)]
        if divisor_override is not None:
            div = divisor_override
        elif count_include_pad:
            div = pool_size
        else:
            div = int(np.prod([end[i] - start[i] for i in range(3)]))
        result.append((tuple(slice(a, b) for a, b in zip(start, end)), div))
    return result


@traced(
    "kernel",
    "at::native::(anonymous)::cpu_avg_pool3d",
    "aten/src/ATen/native/cpu/AvgPoolKernel.cpp",
)
def _avg_pool3d_kernel(
    x: np.ndarray, windows: list[tuple[tuple[slice, ...], int]], out_sizes: Triple
) -> np.ndarray:
    n = x.shape[0]
    out = np.empty((n, len(windows)), dtype=x.dtype)
    for q, (window, div) in enumerate(windows):
        total = x[(slice(None), *window)].sum(axis=(1, 2, 3))
        if x.dtype.kind == "f":
            out[:, q] = total / x.dtype.type(div)
        else:  # C++ integer division truncates toward zero
            out[:, q] = np.sign(total) * (np.abs(total) // abs(div)) * np.sign(div)
    return out.reshape(n, *out_sizes)


@native_function(AVG3D)
def avg_pool3d(
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int] = (),
    padding: Sequence[int] = (0,),
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    k, s, p, out_sizes = _avg_params(
        self, kernel_size, stride, padding, ceil_mode, divisor_override
    )
    windows = _avg_windows(
        self.sizes()[-3:], k, s, p, out_sizes, count_include_pad, divisor_override
    )
    out = _avg_pool3d_kernel(_volumes(self), windows, out_sizes)
    return _from_numpy(out, [*self.sizes()[:-3], *out_sizes], self.scalar_type(), self)


@traced(
    "kernel",
    "at::native::(anonymous)::cpu_avg_pool3d_backward",
    "aten/src/ATen/native/cpu/AvgPoolKernel.cpp",
)
def _avg_pool3d_backward_kernel(
    go: np.ndarray, windows: list[tuple[tuple[slice, ...], int]], in_sizes: Sequence[int]
) -> np.ndarray:
    n = go.shape[0]
    flat_go = go.reshape(n, -1)
    grad = np.zeros((n, *in_sizes), dtype=go.dtype)
    for q, (window, div) in enumerate(windows):
        grad[(slice(None), *window)] += (flat_go[:, q] / go.dtype.type(div))[:, None, None, None]
    return grad


@native_function(AVG3D)
def avg_pool3d_backward(
    grad_output: Tensor,
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: int | None,
) -> Tensor:
    k, s, p, out_sizes = _avg_params(
        self, kernel_size, stride, padding, ceil_mode, divisor_override
    )
    windows = _avg_windows(
        self.sizes()[-3:], k, s, p, out_sizes, count_include_pad, divisor_override
    )
    grad = _avg_pool3d_backward_kernel(_volumes(grad_output), windows, self.sizes()[-3:])
    return _from_numpy(grad, list(self.sizes()), grad_output.scalar_type(), grad_output)
