"""histc: a histogram with equal-width bins between min and max.

Mirrors `histogram_histc_out` in `aten/src/ATen/native/Histogram.cpp` (the outer edges from
min / max, or the data's aminmax when they are equal; torch's checks and messages) and the
LINEAR_INTERPOLATION branch of `aten/src/ATen/native/cpu/HistogramKernel.cpp`: each element in
[leftmost, rightmost] goes to bin `(elt - leftmost) * bins / (rightmost - leftmost)`, computed in
the input's dtype, the last bin including its right edge.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.scalar_ops import Scalar
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import isFloatingType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/Histogram.cpp"


def _at() -> Any:
    from tensortrace.aten import functions as at

    return at


def _outer_bin_edges(self: Tensor, min_: Scalar, max_: Scalar) -> tuple[float, float]:
    left, right = float(min_), float(max_)
    if left == right and self.numel() > 0:
        lo, hi = _at().aminmax(self)
        left, right = float(lo.item()), float(hi.item())
    if left == right:
        left -= 1
        right += 1
    TORCH_CHECK(not (math.isinf(left) or math.isinf(right) or math.isnan(left)
                     or math.isnan(right)), "torch.histc: range of [", left, ", ", right,
                "] is not finite")
    TORCH_CHECK(left < right, "torch.histc: max must be larger than min")
    return left, right


@traced("kernel", "at::native::(anonymous)::histogramdd_cpu_contiguous",
        "aten/src/ATen/native/cpu/HistogramKernel.cpp", legacy="histogram_linear_kernel")
def histogram_linear_kernel(self: Tensor, hist: Tensor, bin_edges: Tensor) -> None:
    values = self.contiguous().numpy_view().reshape(-1)
    edges = bin_edges.numpy_view()
    bins = hist.numel()
    left, right = edges[0], edges[-1]
    inside = values[(values >= left) & (values <= right)]
    with np.errstate(all="ignore"):
        pos = ((inside - left) * values.dtype.type(bins) / (right - left)).astype(np.int64)
    pos[pos == bins] = bins - 1
    counts = np.bincount(pos, minlength=bins)[:bins]
    hist.numpy_view()[...] = counts.astype(hist.numpy_view().dtype)


@native_function(SOURCE, name="histogram_histc_out", legacy="at::native::histogram_histc_out")
def histogram_histc_out(self: Tensor, bins: int = 100, min: Scalar = 0,  # noqa: A002
                        max: Scalar = 0, out: Tensor | None = None) -> Tensor:  # noqa: A002
    assert out is not None
    AT_DISPATCH_CHECK("histogram_cpu", self.scalar_type(), isFloatingType(self.scalar_type()))
    TORCH_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins,
                " for dimension 0")
    out.resize_([bins])
    left, right = _outer_bin_edges(self, min, max)
    bin_edges = _at().linspace(left, right, bins + 1, dtype=self.scalar_type())
    out.zero_()
    if self.numel():
        histogram_linear_kernel(self, out, bin_edges)
    return out


@native_function(SOURCE, name="histogram_histc", legacy="at::native::histogram_histc")
def histogram_histc(self: Tensor, bins: int = 100, min: Scalar = 0,  # noqa: A002
                    max: Scalar = 0) -> Tensor:  # noqa: A002
    hist = _at().empty([0], dtype=self.scalar_type(), device=self.device())
    return histogram_histc_out(self, bins, min, max, out=hist)
