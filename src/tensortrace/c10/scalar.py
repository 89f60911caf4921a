"""c10::Scalar conversions: a Python number turned into one element of a given dtype.

Mirrors `c10/core/Scalar.h` (`Scalar::to<T>()`, the `toByte()`, `toFloat()`... accessors, and
`isFloatingPoint()` / `isIntegral()` / `isBoolean()`), and `c10/util/TypeCast.h` /
`c10/util/TypeSafeSignMath.h` (`checked_convert` and `overflows`). A Scalar holds a double, an
int64 or a bool; converting it to a narrower type checks for overflow and raises
`value cannot be converted to type uint8_t without overflow`, as fill_ and full do.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from tensortrace.c10.exception import torchCheckFail
from tensortrace.c10.scalar_type import (
    ScalarType,
    isComplexType,
    isFloatingType,
    numpy_dtype,
    toRealValueType,
)

Scalar = bool | int | float | complex

_BFLOAT16_MAX = float.fromhex("0x1.fep127")  # std::numeric_limits<c10::BFloat16>::max()

# The C++ type names the Scalar accessors are declared with (AT_FORALL_SCALAR_TYPES_WITH_COMPLEX),
# which is what the overflow message names.
CPP_TYPE_NAMES: dict[ScalarType, str] = {
    ScalarType.Byte: "uint8_t",
    ScalarType.Char: "int8_t",
    ScalarType.Short: "int16_t",
    ScalarType.Int: "int",
    ScalarType.Long: "int64_t",
    ScalarType.Half: "c10::Half",
    ScalarType.Float: "float",
    ScalarType.Double: "double",
    ScalarType.Bool: "bool",
    ScalarType.BFloat16: "c10::BFloat16",
    ScalarType.ComplexHalf: "c10::complex<c10::Half>",
    ScalarType.ComplexFloat: "c10::complex<float>",
    ScalarType.ComplexDouble: "c10::complex<double>",
}


def isFloatingPoint(s: Scalar) -> bool:
    return isinstance(s, float)


def isIntegral(s: Scalar, includeBool: bool) -> bool:
    return isinstance(s, int) and (includeBool or not isinstance(s, bool))


def isBoolean(s: Scalar) -> bool:
    return isinstance(s, bool)


def isComplex(s: Scalar) -> bool:
    return isinstance(s, complex)


@functools.cache  # np.finfo / np.iinfo build arrays on every call; the limits never change
def numeric_limits(scalar_type: ScalarType) -> tuple[float, float]:
    """(std::numeric_limits<T>::lowest(), max()) of a non-bool scalar type."""
    dt = numpy_dtype(scalar_type)
    if scalar_type == ScalarType.BFloat16:
        return -_BFLOAT16_MAX, _BFLOAT16_MAX  # np.finfo does not know ml_dtypes' bfloat16
    if isFloatingType(scalar_type):
        info = np.finfo(dt)
        return float(info.min), float(info.max)
    info_i = np.iinfo(dt)
    return int(info_i.min), int(info_i.max)


def overflows(value: Scalar, scalar_type: ScalarType) -> bool:
    """c10::overflows<To, From>: would static_cast lose the value's magnitude?"""
    if isinstance(value, complex):
        # complex -> real overflows when the imaginary part is nonzero; otherwise each part
        # is checked against the target's value type
        if not isComplexType(scalar_type) and value.imag != 0:
            return True
        part_type = toRealValueType(scalar_type)
        return overflows(value.real, part_type) or (
            isComplexType(scalar_type) and overflows(value.imag, part_type)
        )
    if isComplexType(scalar_type):  # a real value into c10::complex<T>: T's limits
        scalar_type = toRealValueType(scalar_type)
    if scalar_type == ScalarType.Bool or isinstance(value, bool):
        return False
    lo, hi = numeric_limits(scalar_type)
    if isFloatingType(scalar_type):
        if isinstance(value, float) and (math.isinf(value) or math.isnan(value)):
            return False  # float types have inf and NaN
        return value < lo or value > hi
    if isinstance(value, float) and math.isnan(value):
        return True  # integral types have no NaN
    if lo == 0 and isinstance(value, int):
        # unsigned from signed: negative values wrap (two's complement), like `a - b` on uint8
        return value > hi or (value < 0 and -value > hi)
    return value < lo or value > hi


def checked_convert(value: Scalar, scalar_type: ScalarType, name: str | None = None) -> Scalar:
    """c10::checked_convert: the value as scalar_t would hold it, or the overflow error."""
    # a fill_ or a reduction's identity converts the same few numbers again and again: the
    # answer is a function of (value, its type, scalar_type), remembered (remember_conversion)
    key = (value, type(value), scalar_type)
    converted = _CHECKED.get(key)
    if converted is not None:
        return converted
    if overflows(value, scalar_type):  # Note [TORCH_CHECK tests first]
        torchCheckFail(
            "value cannot be converted to type ",
            name or CPP_TYPE_NAMES[scalar_type],
            " without overflow",
        )
    return remember_conversion(_CHECKED, key, value, convert(value, scalar_type))


_CHECKED: dict[tuple[Any, ...], Any] = {}


def remember_conversion(
    table: dict[tuple[Any, ...], Any], key: tuple[Any, ...], value: Any, converted: Any
) -> Any:
    """Store a scalar conversion in its table (checked_convert's, scalar_to's) and return it.

    A float or complex zero is not stored: 0.0 and -0.0 are equal keys that convert to
    different bits. Any number can be converted, so a full table starts again.
    """
    if value != 0 or type(value) is int:
        if len(table) > 256:
            table.clear()
        table[key] = converted
    return converted


def toDouble(s: Scalar) -> float:
    """c10::Scalar::toDouble: a complex value with an imaginary part does not convert."""
    if isinstance(s, complex):
        if s.imag != 0:
            torchCheckFail("value cannot be converted to type double without overflow")
        return s.real
    return float(s)


def convert(value: Scalar, scalar_type: ScalarType) -> Scalar:
    """static_cast<scalar_t>(value), returned as the Python number it equals."""
    if isComplexType(scalar_type):
        part = toRealValueType(scalar_type)
        value = complex(value)
        return complex(convert(value.real, part), convert(value.imag, part))
    if isinstance(value, complex):
        value = value.real  # reached only with a zero imaginary part (checked_convert)
    if scalar_type == ScalarType.Bool:
        return bool(value)
    if isFloatingType(scalar_type):
        return float(np.array(float(value)).astype(numpy_dtype(scalar_type)))
    iv = math.trunc(value)  # float -> integer truncates toward zero
    if not isinstance(value, float):
        bits = np.dtype(numpy_dtype(scalar_type)).itemsize * 8
        iv &= (1 << bits) - 1  # integer narrowing keeps the low bits
        if numeric_limits(scalar_type)[0] < 0 and iv >= 1 << (bits - 1):
            iv -= 1 << bits
    return int(iv)


def to(value: Scalar, scalar_type: ScalarType) -> Scalar:
    """Scalar::to<scalar_t>()."""
    return checked_convert(value, scalar_type)
