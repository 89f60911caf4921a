"""max_pool1d, with its direct CPU path.

Mirrors `aten/src/ATen/native/MaxPooling.cpp` and the kernel of `cpu/MaxPooling.cpp`: after
check_max_pool1d, an input that needs a gradient (or is not on the CPU) goes through
max_pool1d_with_indices (pooling.py: max_pool2d_with_indices over a height-1 view, which
autograd knows); otherwise max_pool1d_impl computes the values alone into one at::empty
output, without indices. Within a window torch keeps the first maximum, and a NaN wins.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.pooling import pooling_output_shape
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.autograd_state import autograd_state
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import isFloatingType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/MaxPooling.cpp"


def _sizes(t: Tensor) -> str:
    return "[" + ", ".join(str(s) for s in t.sizes()) + "]"


def _check_max_pool1d(
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil_mode: bool,
) -> None:
    TORCH_CHECK(
        self.dim() in (2, 3),
        "max_pool1d() Expected 2D or 3D input tensor, but got ",
        _sizes(self),
    )
    TORCH_CHECK(
        len(kernel_size) == 1,
        "max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 but "
        "got size ",
        len(kernel_size),
    )
    TORCH_CHECK(
        len(stride) in (0, 1),
        "max_pool1d() stride must be None, an int, list of ints, or tuple of ints of size 1 but "
        "got size ",
        len(stride),
    )
    TORCH_CHECK(
        len(padding) == 1,
        "max_pool1d() padding must be an int, list of ints, or tuple of ints of size 1 but got "
        "size ",
        len(padding),
    )
    TORCH_CHECK(
        len(dilation) == 1,
        "max_pool1d() dilation must be an int, list of ints or tuple of ints of size 1 but got "
        "size ",
        len(dilation),
    )
    stride = stride if len(stride) else kernel_size
    k, s, p, d = kernel_size[0], stride[0], padding[0], dilation[0]
    TORCH_CHECK(k > 0, "max_pool1d() kernel_size must be greater than zero, but got ", k)
    TORCH_CHECK(s > 0, "max_pool1d() stride must be greater than zero, but got ", s)
    TORCH_CHECK(p >= 0, "max_pool1d() padding must be non-negative, but got ", p)
    TORCH_CHECK(
        p <= k // 2,
        "max_pool1d() padding should be at most half of kernel size, but got padding=",
        p,
        " and kernel_size=",
        k,
    )
    TORCH_CHECK(d > 0, "max_pool1d() dilation must be greater than zero, but got ", d)
    ow = pooling_output_shape(self.size(-1), k, p, s, d, ceil_mode)
    TORCH_CHECK(ow > 0, "max_pool1d() Invalid computed output size: ", ow)


@traced(
    "kernel",
    "at::native::(anonymous)::max_pool1d_impl",
    "aten/src/ATen/native/cpu/MaxPooling.cpp",
    legacy="max_pool1d_kernel",
)
def _max_pool1d_kernel(x: np.ndarray, kw: int, sj: int, pj: int, dj: int, ow: int) -> np.ndarray:
    nb, nc, iw = x.shape
    out = np.empty((nb, nc, ow), dtype=x.dtype)
    for oj in range(ow):
        cols = [oj * sj - pj + kj * dj for kj in range(kw)]
        cols = [c for c in cols if 0 <= c < iw]
        vals = x[:, :, cols]
        best = vals.max(axis=-1)
        if vals.dtype.kind == "f":
            best = np.where(np.isnan(vals).any(axis=-1), np.nan, best)
        out[:, :, oj] = best
    return out


def _max_pool1d_impl(
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil_mode: bool,
) -> Tensor:
    # the kernel's AT_DISPATCH_FLOATING_TYPES_AND2(BFloat16, Half)
    TORCH_CHECK_NOT_IMPLEMENTED(
        isFloatingType(self.scalar_type()),
        '"max_pool1d_impl" not implemented for \'',
        self.scalar_type().name,
        "'",
    )
    stride = stride if len(stride) else kernel_size
    nb = self.size(-3) if self.dim() == 3 else 1
    nc, iw = self.size(-2), self.size(-1)
    kw, sj, pj, dj = kernel_size[0], stride[0], padding[0], dilation[0]
    ow = pooling_output_shape(iw, kw, pj, sj, dj, ceil_mode)
    output = at.empty([nb, nc, ow], dtype=self.scalar_type(), device=self.device())
    x = np.asarray(self.contiguous().numpy_view()).reshape(nb, nc, iw)
    out = _max_pool1d_kernel(x, kw, sj, pj, dj, ow)
    if out.size:
        output.numpy_view()[...] = out
    if self.dim() == 2:
        output.squeeze_(0)
    return output


@native_function(SOURCE, name="max_pool1d")
def max_pool1d(
    self: Tensor,
    kernel_size: Sequence[int],
    stride: Sequence[int] = (),
    padding: Sequence[int] = (0,),
    dilation: Sequence[int] = (1,),
    ceil_mode: bool = False,
) -> Tensor:
    kernel_size, stride = list(kernel_size), list(stride)
    padding, dilation = list(padding), list(dilation)
    ndim = self.dim()
    TORCH_CHECK(
        (ndim == 2 and self.size(0) != 0 and self.size(1) != 0)
        or (ndim == 3 and self.size(1) != 0 and self.size(2) != 0),
        "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
        "input, but got:",
        _sizes(self),
    )
    _check_max_pool1d(self, kernel_size, stride, padding, dilation, ceil_mode)
    if (self.requires_grad() and autograd_state.grad_mode) or not self.is_cpu():
        # the indices are needed for the gradient
        return at.max_pool1d_with_indices(  # type: ignore[no-any-return]
            self, kernel_size, stride, padding, dilation, ceil_mode
        )[0]
    return _max_pool1d_impl(self, kernel_size, stride, padding, dilation, ceil_mode)
