"""Broadcasting: the shape two tensors broadcast to.

Mirrors `aten/src/ATen/ExpandUtils.cpp` (infer_size_impl), with PyTorch's error message.
"""

from __future__ import annotations

from collections.abc import Sequence

from tensortrace.c10.exception import torchCheckFail


def infer_size(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    """Align from the right; each pair of sizes must be equal or one of them must be 1."""
    ndim = max(len(a), len(b))
    expanded = [0] * ndim
    for i in range(ndim - 1, -1, -1):
        offset = ndim - 1 - i
        dim_a = len(a) - 1 - offset
        dim_b = len(b) - 1 - offset
        size_a = a[dim_a] if dim_a >= 0 else 1
        size_b = b[dim_b] if dim_b >= 0 else 1
        if not (size_a == size_b or size_a == 1 or size_b == 1):
            torchCheckFail(
                "The size of tensor a (",
                size_a,
                ") must match the size of tensor b (",
                size_b,
                ") at non-singleton dimension ",
                i,
            )
        expanded[i] = size_b if size_a == 1 else size_a
    return tuple(expanded)
