"""static_cast<scalar_t> and numeric_limits<scalar_t>::max() for the CPU random kernels' dtypes.

Split out of distribution_templates.py (`aten/src/ATen/native/cpu/DistributionTemplates.h`,
whose kernels cast each drawn value with `static_cast<scalar_t>`): how a double or an int64
becomes each element type, as the x86-64 build converts it, and the bounds uniform_ checks.
"""

from __future__ import annotations

import math

import numpy as np

try:  # bfloat16 has no NumPy dtype of its own; ml_dtypes provides c10::BFloat16's bits.
    from ml_dtypes import bfloat16 as _ml_bfloat16

    BFLOAT16: np.dtype | None = np.dtype(_ml_bfloat16)
except ImportError:  # pragma: no cover - depends on the environment
    BFLOAT16 = None

_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_I64 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)
_INT64_MIN = -(1 << 63)


def _is_reduced_float(dtype: np.dtype) -> bool:
    return dtype == _F16 or (BFLOAT16 is not None and dtype == BFLOAT16)


def _cast_from_double(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """static_cast<scalar_t>(double). c10::Half/BFloat16 only convert from float, so via float32."""
    if _is_reduced_float(dtype):
        return values.astype(_F32).astype(dtype)
    return values.astype(dtype)


def _cast_from_int64(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """static_cast<scalar_t>(int64_t): wraps for narrower ints, rounds to nearest for floats."""
    if dtype == _BOOL:
        return values != 0
    if _is_reduced_float(dtype):
        with np.errstate(over="ignore"):  # out-of-range values become inf, as in C++
            return values.astype(_F32).astype(dtype)  # int64 -> float -> Half/BFloat16
    return values.astype(dtype)


def _float_to_int64(value: float) -> int:
    """static_cast<int64_t>(float/double) as x86 cvttsd2si: truncate; out of range -> INT64_MIN."""
    if math.isnan(value) or not -(2.0**63) <= value < 2.0**63:
        return _INT64_MIN
    return int(value)


def _scalar_roundtrip_int64(dtype: np.dtype, v: int) -> int:
    """static_cast<int64_t>(static_cast<scalar_t>(v)) for a floating scalar_t."""
    as_scalar = _cast_from_int64(np.array([v], dtype=_I64), dtype)
    return _float_to_int64(float(as_scalar.astype(_F64)[0]))


_MAX_VALUES: dict[np.dtype, float] = {}


def _max_value(dtype: np.dtype) -> float:
    """std::numeric_limits<scalar_t>::max() of a floating dtype, as a double (made once)."""
    value = _MAX_VALUES.get(dtype)
    if value is None:
        if BFLOAT16 is not None and dtype == BFLOAT16:
            value = float(np.array(0x7F7F, dtype=np.uint16).view(BFLOAT16).astype(np.float64))
        else:
            value = float(np.finfo(dtype).max)
        _MAX_VALUES[dtype] = value
    return value


_CAST_BOUNDS: dict[tuple[float, np.dtype], object] = {}


def _cast_bound(value: float, dtype: np.dtype) -> object:
    """static_cast<scalar_t>(value) of a uniform_ bound, as a NumPy scalar, made once per pair."""
    if value == 0:  # 0.0 and -0.0 are equal keys but cast to different bits: not cached
        return _cast_from_double(np.array([value]), dtype)[0]
    key = (value, dtype)
    scalar = _CAST_BOUNDS.get(key)
    if scalar is None:
        if len(_CAST_BOUNDS) > 256:  # any float can be a bound: keep the table small
            _CAST_BOUNDS.clear()
        scalar = _CAST_BOUNDS[key] = _cast_from_double(np.array([value]), dtype)[0]
    return scalar
