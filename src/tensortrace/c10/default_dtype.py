"""The default floating dtype that factories use when none is given (torch.get_default_dtype).

Mirrors `c10/core/DefaultDtype.cpp`.
"""

from __future__ import annotations

from tensortrace.c10.exception import TORCH_CHECK_TYPE
from tensortrace.c10.scalar_type import ScalarType, isFloatingType, toComplexType

_default_dtype = ScalarType.Float


def get_default_dtype() -> ScalarType:
    return _default_dtype


def set_default_dtype(dtype: ScalarType) -> None:
    global _default_dtype
    TORCH_CHECK_TYPE(
        isFloatingType(dtype), "only floating-point types are supported as the default type"
    )
    _default_dtype = dtype


def get_default_complex_dtype() -> ScalarType:
    """The complex type matching the default float type (float -> complex64)."""
    if _default_dtype == ScalarType.BFloat16:  # DefaultDtype.cpp has no case for it
        raise RuntimeError("invalid default scalar type for complex")
    return toComplexType(_default_dtype)
