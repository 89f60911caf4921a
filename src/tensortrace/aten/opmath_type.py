"""opmath_type: the dtype a kernel computes in, and c10::Scalar::to<T> for NumPy kernels.

Mirrors `aten/src/ATen/OpMathType.h` and `c10/core/Scalar.h` (`Scalar::to<scalar_t>()`). CPU
kernels over Half and BFloat16 load each element into a float, compute in float, and round the
result back once (Vectorized<Half> converts to two Vectorized<float>), so a NumPy kernel over a
16-bit float upcasts its operands to float32 and lets the store into the output round.
"""

from __future__ import annotations

import math
from typing import Any, cast, overload

import numpy as np

from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar import CPP_TYPE_NAMES, numeric_limits, overflows, remember_conversion
from tensortrace.c10.scalar_type import (
    ScalarType,
    TypeMeta,
    isComplexType,
    isFloatingType,
    numpy_dtype,
)

_REDUCED = (ScalarType.Half, ScalarType.BFloat16)


def opmath_type(dtype: ScalarType) -> ScalarType:
    """at::opmath_type<scalar_t>: float for Half and BFloat16, the type itself otherwise."""
    if dtype == ScalarType.ComplexHalf:
        return ScalarType.ComplexFloat
    return ScalarType.Float if dtype in _REDUCED else dtype


def is_reduced_floating_point(dtype: ScalarType) -> bool:
    return dtype in _REDUCED


_SIXTEEN_BIT_FLOATS = frozenset(
    t.numpy
    for t in map(TypeMeta.fromScalarType, (ScalarType.Half, ScalarType.BFloat16))
    if t.numpy is not None
)


@overload
def to_opmath(*arrays: np.ndarray) -> list[np.ndarray]: ...
@overload
def to_opmath(*arrays: np.ndarray | np.generic) -> list[np.ndarray | np.generic]: ...


def to_opmath(*arrays: np.ndarray | np.generic) -> list[Any]:
    """Upcast 16-bit float arrays to float32 (the loads of a Vectorized<Half> loop)."""
    upcast = []  # a loop, not a comprehension: no frame of its own (every kernel loads here)
    for a in arrays:
        upcast.append(a.astype(np.float32) if a.dtype in _SIXTEEN_BIT_FLOATS else a)
    return upcast


def _overflows(value: bool | int | float, dtype: ScalarType) -> bool:
    """c10::overflows<To, From>: negative integers may wrap into unsigned types."""
    if dtype == ScalarType.Bool or isinstance(value, bool):
        return False
    lo, hi = numeric_limits(dtype)
    if isFloatingType(dtype):
        if isinstance(value, float) and (math.isinf(value) or math.isnan(value)):
            return False
        return abs(float(value)) > hi
    if lo == 0 and value < 0:
        return -int(value) > hi
    return value < lo or value > hi


# float32 and float64 represent every integer up to 2**53 exactly, so converting one through a
# Python float rounds exactly as NumPy's int64 -> float cast does.
_EXACT_INT_TO_FLOAT = (-(2**53), 2**53)


def scalar_to(
    value: bool | int | float | complex, dtype: ScalarType, opmath: bool = True
) -> np.generic:
    """Scalar::to<T>(): a checked conversion (an out-of-range value raises, as in c10), after
    which integers wrap as a C++ static_cast does (-1 as uint8 is 255).

    With `opmath`, a Half or BFloat16 kernel's scalar is a float (opmath_t)."""
    # every binary op converts its alpha (and a wrapped number its value): the answer is a
    # function of (value, its type, dtype, opmath), remembered (remember_conversion)
    key = (value, type(value), dtype, opmath)
    converted = _CONVERTED.get(key)
    if converted is not None:
        return converted
    return remember_conversion(_CONVERTED, key, value, _scalar_to(value, dtype, opmath))


_CONVERTED: dict[tuple[object, type, ScalarType, bool], np.generic] = {}


def _scalar_to(value: bool | int | float | complex, dtype: ScalarType, opmath: bool) -> np.generic:
    target = opmath_type(dtype) if opmath else dtype
    if isinstance(value, complex) or isComplexType(target):
        # c10::complex: each part checked (a nonzero imaginary part cannot become a real)
        TORCH_CHECK(
            not overflows(value, target),
            "value cannot be converted to type ",
            CPP_TYPE_NAMES[target],
            " without overflow",
        )
        if isComplexType(target):
            return numpy_dtype(target).type(complex(value))
        value = value.real  # type: ignore[union-attr]
    if _overflows(value, target):
        TORCH_CHECK(
            False, "value cannot be converted to type ", CPP_TYPE_NAMES[target], " without overflow"
        )
    dt = numpy_dtype(target)
    if target == ScalarType.Bool:
        return np.bool_(bool(value))
    if (
        type(value) is int
        and target in (ScalarType.Float, ScalarType.Double)
        and _EXACT_INT_TO_FLOAT[0] <= value <= _EXACT_INT_TO_FLOAT[1]
    ):
        return dt.type(value)  # the common alpha=1: no temporary arrays
    if isinstance(value, (bool, int)) or dt.kind == "f" or dt.name == "bfloat16":
        source = np.int64 if isinstance(value, (bool, int)) else np.float64
        with np.errstate(all="ignore"):
            # a 0-d array's [()] is its scalar; NumPy's stubs type it as an array
            return cast(np.generic, np.array(value, dtype=source).astype(dt)[()])
    # float -> int truncates
    return cast(np.generic, np.array(int(value), dtype=np.int64).astype(dt)[()])
