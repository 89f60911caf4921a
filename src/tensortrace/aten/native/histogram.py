"""histc and histogram: histograms with equal-width bins, or with given bin edges.

Mirrors `histogram_histc_out` in `aten/src/ATen/native/Histogram.cpp` (the outer edges from
min / max, or the data's aminmax when they are equal; torch's checks and messages) and the
LINEAR_INTERPOLATION branch of `aten/src/ATen/native/cpu/HistogramKernel.cpp`: each element in
[leftmost, rightmost] goes to bin `(elt - leftmost) * bins / (rightmost - leftmost)`, computed in
the input's dtype, the last bin including its right edge. torch.histogram (histogramdd_out with
one dimension) takes bin edges or a bin count with an optional range, optional weights, and a
density normalisation, and finds each element's bin by searching the edges (the LOCAL_SEARCH
and BINARY_SEARCH branches agree on it: the last edge <= the element).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.cpu.binary_ops_kernel import AT_DISPATCH_CHECK
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.scalar_ops import Scalar
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar import CPP_TYPE_NAMES, toDouble
from tensortrace.c10.scalar_type import isFloatingType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/Histogram.cpp"


def _type_name(t: Tensor) -> str:
    """A dtype as a TypeMeta prints: float, double, c10::Half ..."""
    return CPP_TYPE_NAMES[t.scalar_type()]


def _outer_bin_edges(self: Tensor, min_: Scalar, max_: Scalar) -> tuple[float, float]:
    left, right = toDouble(min_), toDouble(max_)
    if left == right and self.numel() > 0:
        lo, hi = at.aminmax(self)
        left, right = float(lo.item()), float(hi.item())
    if left == right:
        left -= 1
        right += 1
    TORCH_CHECK(
        not (math.isinf(left) or math.isinf(right) or math.isnan(left) or math.isnan(right)),
        "torch.histc: range of [",
        left,
        ", ",
        right,
        "] is not finite",
    )
    TORCH_CHECK(left < right, "torch.histc: max must be larger than min")
    return left, right


@traced(
    "kernel",
    "at::native::(anonymous)::histogramdd_cpu_contiguous",
    "aten/src/ATen/native/cpu/HistogramKernel.cpp",
    legacy="histogram_linear_kernel",
)
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
def histogram_histc_out(
    self: Tensor,
    bins: int = 100,
    min: Scalar = 0,  # noqa: A002
    max: Scalar = 0,
    out: Tensor | None = None,
) -> Tensor:  # noqa: A002
    assert out is not None
    AT_DISPATCH_CHECK("histogram_cpu", self.scalar_type(), isFloatingType(self.scalar_type()))
    TORCH_CHECK(bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0")
    out.resize_([bins])
    left, right = _outer_bin_edges(self, min, max)
    bin_edges = at.linspace(left, right, bins + 1, dtype=self.scalar_type(), device=self.device())
    out.zero_()
    if self.numel():
        histogram_linear_kernel(self, out, bin_edges)
    return out


@native_function(SOURCE, name="histogram_histc", legacy="at::native::histogram_histc")
def histogram_histc(
    self: Tensor,
    bins: int = 100,
    min: Scalar = 0,  # noqa: A002
    max: Scalar = 0,
) -> Tensor:  # noqa: A002
    hist = at.empty([0], dtype=self.scalar_type(), device=self.device())
    return histogram_histc_out(self, bins, min, max, out=hist)


@traced(
    "kernel",
    "at::native::(anonymous)::histogramdd_cpu_contiguous",
    "aten/src/ATen/native/cpu/HistogramKernel.cpp",
    legacy="histogramdd_kernel",
)
def histogramdd_kernel(
    self: Tensor, weight: Tensor | None, hist: Tensor, bin_edges: Tensor
) -> None:
    values = self.contiguous().numpy_view().reshape(-1)
    edges = bin_edges.contiguous().numpy_view()
    bins = hist.numel()
    keep = (values >= edges[0]) & (values <= edges[-1])
    pos = np.searchsorted(edges, values[keep], side="right") - 1
    pos[pos == bins] = bins - 1
    w = None if weight is None else weight.contiguous().numpy_view().reshape(-1)[keep]
    counts = np.zeros(bins, dtype=np.float64)
    np.add.at(counts, pos, 1.0 if w is None else w.astype(np.float64))
    hist.numpy_view()[...] = counts.astype(hist.numpy_view().dtype)


@native_function(SOURCE, name="histogram", legacy="at::native::histogram")
def histogram(
    self: Tensor,
    bins: Tensor | int = 100,
    range: Any = None,  # noqa: A002
    weight: Tensor | None = None,
    density: bool = False,
) -> tuple[Tensor, Tensor]:
    """histogram.bins_tensor (bins are the edges) and histogram.bin_ct (a count)."""
    AT_DISPATCH_CHECK("histogramdd", self.scalar_type(), isFloatingType(self.scalar_type()))
    if weight is not None:
        TORCH_CHECK(
            weight.scalar_type() == self.scalar_type(),
            "torch.histogram: if weight "
            "tensor is provided, it should have the same dtype as the input tensor",
        )
        TORCH_CHECK(
            list(weight.sizes()) == list(self.sizes()),
            "torch.histogram: if weight "
            "tensor is provided it should have the same shape as the input tensor "
            "excluding its innermost dimension",
        )
    if isinstance(bins, Tensor):
        TORCH_CHECK(
            bins.scalar_type() == self.scalar_type(),
            "torch.histogramdd: input "
            "tensor and bins tensors should have the same dtype, but got input with "
            "dtype ",
            _type_name(self),
            " and bins for dimension 0 with dtype ",
            _type_name(bins),
        )
        TORCH_CHECK(
            bins.dim() == 1,
            "torch.histogram: bins tensor should have one dimension, but got ",
            bins.dim(),
            " dimensions in the bins tensor",
        )
        TORCH_CHECK(
            bins.numel() > 0,
            "torch.histogram: bins tensor should have at least 1 element, but got ",
            bins.numel(),
            " elements in the bins tensor",
        )
        bin_edges = bins.contiguous().clone()
    else:
        TORCH_CHECK(
            bins > 0, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0"
        )
        if range is not None:
            TORCH_CHECK(
                len(range) == 2,
                "torch.histogram(): range should have 2 elements, but got ",
                len(range),
            )
            left, right = float(range[0]), float(range[1])
        elif self.numel() > 0:
            lo, hi = at.aminmax(self)
            left, right = float(lo.item()), float(hi.item())
        else:
            left, right = 0.0, 0.0
        if left == right:
            left -= 0.5
            right += 0.5
        TORCH_CHECK(
            not (math.isinf(left) or math.isinf(right) or math.isnan(left) or math.isnan(right)),
            "torch.histogramdd: dimension 0's range [",
            left,
            ", ",
            right,
            "] is not finite",
        )
        TORCH_CHECK(
            left <= right,
            "torch.histogramdd: min should not exceed max, but got min ",
            left,
            " max ",
            right,
            " for dimension 0",
        )
        bin_edges = at.linspace(
            left, right, int(bins) + 1, dtype=self.scalar_type(), device=self.device()
        )
    hist = at.zeros([bin_edges.numel() - 1], dtype=self.scalar_type(), device=self.device())
    if self.numel() and hist.numel():
        histogramdd_kernel(self, weight, hist, bin_edges)
    if density:
        hist.div_(hist.sum())
        lengths = at.slice(bin_edges, 0, 1, None).sub(at.slice(bin_edges, 0, 0, -1))
        hist.div_(lengths)
    return hist, bin_edges
