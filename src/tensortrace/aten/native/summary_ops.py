"""bincount: count (or sum the weights of) each non-negative integer of a 1-d tensor.

Mirrors `_bincount_cpu` / `_bincount_cpu_template` of `aten/src/ATen/native/SummaryOps.cpp`
(histc, also in SummaryOps.cpp, is in histogram.py). Without weights the counts are int64; with
float32 weights the sums are float32, with any other weights double. The loop adds the weights
in input order, as the C++ loop does (np.add.at is unbuffered and sequential).
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.registry import native_function
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.exception import TORCH_CHECK, TORCH_CHECK_NOT_IMPLEMENTED
from tensortrace.c10.scalar_type import ScalarType, isIntegralType
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/SummaryOps.cpp"
INT64_MAX = 2**63 - 1


@traced("kernel", "at::native::(anonymous)::_bincount_cpu_template (loop)", SOURCE)
def bincount_loop(output: Tensor, self: Tensor, weights: Tensor | None) -> None:
    out = output.numpy_view()
    index = self.numpy_view().astype(np.int64)
    if weights is None:
        np.add.at(out, index, 1)
    else:
        np.add.at(out, index, weights.numpy_view())


def _bincount_cpu_template(self: Tensor, weights: Tensor | None, minlength: int) -> Tensor:
    TORCH_CHECK(minlength >= 0, "minlength should be >= 0")
    if self.dim() == 1 and self.numel() == 0:
        return at.zeros([minlength], dtype=ScalarType.Long, device=self.device())
    TORCH_CHECK(
        self.dim() == 1 and int(self.min().item()) >= 0,
        "bincount only supports 1-d non-negative integral inputs.",
    )
    max_val = int(self.max().item())
    TORCH_CHECK(
        max_val < INT64_MAX,
        "maximum value of input overflowed, it should be < ",
        INT64_MAX,
    )
    TORCH_CHECK(
        weights is None or (weights.dim() == 1 and weights.size(0) == self.size(0)),
        "weights should be 1-d and have the same length as input",
    )
    nbins = max(max_val + 1, minlength)  # at least minlength bins
    dtype = ScalarType.Long if weights is None else weights.scalar_type()
    output = at.zeros([nbins], dtype=dtype, device=self.device())
    bincount_loop(output, self, weights)
    return output


@native_function(SOURCE, name="_bincount_cpu")
def _bincount_cpu(self: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    TORCH_CHECK_NOT_IMPLEMENTED(
        isIntegralType(self.scalar_type(), False),
        '"bincount_cpu" not implemented for \'',
        self.scalar_type(),
        "'",
    )
    if weights is None or weights.scalar_type() == ScalarType.Float:
        w = None if weights is None else weights.contiguous()
        return _bincount_cpu_template(self.contiguous(), w, minlength)
    return _bincount_cpu_template(
        self.contiguous(), weights.contiguous().to(ScalarType.Double), minlength
    )
