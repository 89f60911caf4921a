"""The loss reductions' names and their at::Reduction numbers, and the legacy size_average/reduce.

Mirrors `torch/nn/_reduction.py` (at::Reduction in aten/src/ATen/core/Reduction.h: None = 0,
Mean = 1, Sum = 2).
"""

from __future__ import annotations

import warnings


def get_enum(reduction: str) -> int:
    if reduction == "none":
        return 0
    if reduction == "mean":
        return 1
    if reduction == "elementwise_mean":
        warnings.warn(
            "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
            stacklevel=2,
        )
        return 1
    if reduction == "sum":
        return 2
    raise ValueError(f"{reduction} is not a valid value for reduction")


def legacy_get_string(
    size_average: bool | None, reduce: bool | None, emit_warning: bool = True
) -> str:
    warning = "size_average and reduce args will be deprecated, please use reduction='{}' instead."
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(warning.format(ret), stacklevel=2)
    return ret


def legacy_get_enum(
    size_average: bool | None, reduce: bool | None, emit_warning: bool = True
) -> int:
    return get_enum(legacy_get_string(size_average, reduce, emit_warning))
