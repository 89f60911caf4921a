"""Negative dims count from the end: maybe_wrap_dim, with PyTorch's IndexError.

Mirrors `c10/core/WrapDimMinimal.h` and `aten/src/ATen/WrapDimUtils.h`.
"""

from __future__ import annotations

from tensortrace.c10.exception import TORCH_CHECK_INDEX


def maybe_wrap_dim(dim: int, dim_post_expr: int, wrap_scalar: bool = True) -> int:
    if dim_post_expr <= 0:
        TORCH_CHECK_INDEX(
            wrap_scalar, "Dimension specified as ", dim, " but tensor has no dimensions"
        )
        dim_post_expr = 1  # a scalar wraps as if it were 1-d: only -1 and 0 are valid
    lo, hi = -dim_post_expr, dim_post_expr - 1
    if not lo <= dim <= hi:  # Note [TORCH_CHECK tests first]: every dim argument passes here
        TORCH_CHECK_INDEX(
            False,
            "Dimension out of range (expected to be in range of [",
            lo,
            ", ",
            hi,
            "], but got ",
            dim,
            ")",
        )
    return dim + dim_post_expr if dim < 0 else dim
