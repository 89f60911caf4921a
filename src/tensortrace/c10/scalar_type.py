"""ScalarType, TypeMeta and type promotion.

Mirrors `c10/core/ScalarType.h` (the enum with PyTorch's numbering, `promoteTypes`, the
predicates) and `c10/util/typeid.h` (TypeMeta: the itemsize and name of an element type). Each
ScalarType also knows the NumPy dtype its elements are stored as, since kernels run on NumPy.
bfloat16 is stored with `ml_dtypes.bfloat16` (the same 16 bits PyTorch uses), when installed.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import numpy as np

from tensortrace.c10.frozen import Frozen

try:  # bfloat16 has no NumPy dtype of its own; ml_dtypes provides the real 16-bit format.
    from ml_dtypes import bfloat16 as _np_bfloat16
except ImportError:  # pragma: no cover - ml_dtypes is a dependency
    _np_bfloat16 = None


class ScalarType(IntEnum):
    """The element types, numbered as in c10/core/ScalarType.h."""

    Byte = 0
    Char = 1
    Short = 2
    Int = 3
    Long = 4
    Half = 5
    Float = 6
    Double = 7
    ComplexHalf = 8
    ComplexFloat = 9
    ComplexDouble = 10
    Bool = 11
    BFloat16 = 15
    Undefined = 100

    def __str__(self) -> str:  # c10::toString(ScalarType)
        return _SCALAR_TYPE_NAMES[self]  # Enum.name is two Python calls; the trace asks often


_SCALAR_TYPE_NAMES: dict[ScalarType, str] = {st: st.name for st in ScalarType}

# the members the helpers below compare with, read once (Note [Enum members read once])
kByte = ScalarType.Byte  # noqa: N816 - c10's name
kChar = ScalarType.Char  # noqa: N816 - c10's name
kShort = ScalarType.Short  # noqa: N816 - c10's name
kHalf = ScalarType.Half  # noqa: N816 - c10's name
kFloat = ScalarType.Float  # noqa: N816 - c10's name
kBFloat16 = ScalarType.BFloat16  # noqa: N816 - c10's name
kBool = ScalarType.Bool  # noqa: N816 - c10's name
kUndefined = ScalarType.Undefined  # noqa: N816 - c10's name


class TypeMeta(Frozen):
    """caffe2::TypeMeta: what the storage needs to know about an element type."""

    # Note [Records written out, not made by dataclass] in c10/frozen.py
    __slots__ = ("scalar_type", "itemsize", "name", "numpy")
    __match_args__ = __slots__  # the fields, in order

    scalar_type: ScalarType
    itemsize: int
    name: str  # the C++ type name, as TypeMeta::name() gives it
    numpy: np.dtype | None

    def __init__(
        self, scalar_type: ScalarType, itemsize: int, name: str, numpy: np.dtype | None
    ) -> None:
        object.__setattr__(self, "scalar_type", scalar_type)
        object.__setattr__(self, "itemsize", itemsize)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "numpy", numpy)

    @staticmethod
    def fromScalarType(scalar_type: ScalarType) -> TypeMeta:
        return _TYPE_METAS[scalar_type]

    def toScalarType(self) -> ScalarType:
        return self.scalar_type


def _meta(st: ScalarType, name: str, np_type: type[Any] | None) -> TypeMeta:
    dt = np.dtype(np_type) if np_type is not None else None
    itemsize = dt.itemsize if dt is not None else (4 if st == ScalarType.ComplexHalf else 2)
    return TypeMeta(st, itemsize, name, dt)


_TYPE_METAS: dict[ScalarType, TypeMeta] = {
    ScalarType.Byte: _meta(ScalarType.Byte, "unsigned char", np.uint8),
    ScalarType.Char: _meta(ScalarType.Char, "signed char", np.int8),
    ScalarType.Short: _meta(ScalarType.Short, "short int", np.int16),
    ScalarType.Int: _meta(ScalarType.Int, "int", np.int32),
    ScalarType.Long: _meta(ScalarType.Long, "long int", np.int64),
    ScalarType.Half: _meta(ScalarType.Half, "c10::Half", np.float16),
    ScalarType.Float: _meta(ScalarType.Float, "float", np.float32),
    ScalarType.Double: _meta(ScalarType.Double, "double", np.float64),
    # c10::complex<c10::Half> has no NumPy dtype: torch's CPU kernels barely support it either
    ScalarType.ComplexHalf: _meta(ScalarType.ComplexHalf, "c10::complex<c10::Half>", None),
    ScalarType.ComplexFloat: _meta(ScalarType.ComplexFloat, "c10::complex<float>", np.complex64),
    ScalarType.ComplexDouble: _meta(
        ScalarType.ComplexDouble, "c10::complex<double>", np.complex128
    ),
    ScalarType.Bool: _meta(ScalarType.Bool, "bool", np.bool_),
    ScalarType.BFloat16: _meta(ScalarType.BFloat16, "c10::BFloat16", _np_bfloat16),
}

_FLOATING = frozenset({ScalarType.Half, ScalarType.Float, ScalarType.Double, ScalarType.BFloat16})
_COMPLEX = frozenset({ScalarType.ComplexHalf, ScalarType.ComplexFloat, ScalarType.ComplexDouble})
_INTEGRAL = frozenset(
    {ScalarType.Byte, ScalarType.Char, ScalarType.Short, ScalarType.Int, ScalarType.Long}
)


def elementSize(t: ScalarType) -> int:
    return _TYPE_METAS[t].itemsize


def isFloatingType(t: ScalarType) -> bool:
    return t in _FLOATING


def isIntegralType(t: ScalarType, includeBool: bool) -> bool:
    return t in _INTEGRAL or (includeBool and t == kBool)


def isComplexType(t: ScalarType) -> bool:
    return t in _COMPLEX


_TO_COMPLEX = {
    ScalarType.Half: ScalarType.ComplexHalf,
    ScalarType.Float: ScalarType.ComplexFloat,
    ScalarType.Double: ScalarType.ComplexDouble,
    # BFloat16 has the range of Float, so it maps to ComplexFloat
    ScalarType.BFloat16: ScalarType.ComplexFloat,
}
_TO_REAL = {
    ScalarType.ComplexHalf: ScalarType.Half,
    ScalarType.ComplexFloat: ScalarType.Float,
    ScalarType.ComplexDouble: ScalarType.Double,
}


def toComplexType(t: ScalarType) -> ScalarType:
    """c10::toComplexType: the complex type whose parts are `t` (complex types map to self)."""
    if t in _COMPLEX:
        return t
    if t not in _TO_COMPLEX:
        raise RuntimeError(f"Unknown Complex ScalarType for {t}")
    return _TO_COMPLEX[t]


def toRealValueType(t: ScalarType) -> ScalarType:
    """c10::toRealValueType: the type of a complex type's real and imaginary parts."""
    return _TO_REAL.get(t, t)


def isSignedType(t: ScalarType) -> bool:
    return t not in (kByte, kBool)


def numpy_dtype(t: ScalarType) -> np.dtype:
    dt = _TYPE_METAS[t].numpy
    if dt is None:
        raise RuntimeError(f"{t} needs the ml_dtypes package, which is not installed")
    return dt


_FROM_NUMPY: dict[np.dtype, ScalarType] = {
    m.numpy: st for st, m in _TYPE_METAS.items() if m.numpy is not None
}


def scalar_type_from_numpy(dt: np.dtype) -> ScalarType:
    try:
        return _FROM_NUMPY[np.dtype(dt)]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(dt).name}. The only supported "
            "types are: float64, float32, float16, complex64, complex128, int64, int32, int16, "
            "int8, uint8, and bool."
        ) from None


# Integer promotion by rank; uint8 with a signed type widens to the next signed type.
_INT_RANK = {
    ScalarType.Byte: 1,
    ScalarType.Char: 1,
    ScalarType.Short: 2,
    ScalarType.Int: 3,
    ScalarType.Long: 4,
}
_FLOAT_RANK = {
    ScalarType.Half: 1,
    ScalarType.BFloat16: 1,
    ScalarType.Float: 2,
    ScalarType.Double: 3,
}


def promoteTypes(a: ScalarType, b: ScalarType) -> ScalarType:
    """c10::promoteTypes: the lookup table of ScalarType.h, written as the rules it encodes."""
    if a == b:
        return a
    if kUndefined in (a, b):
        return kUndefined
    if a == kBool:
        return b
    if b == kBool:
        return a
    if a in _COMPLEX or b in _COMPLEX:
        # complex wins over every real type; its parts follow the real promotion table
        # (the c4/c8/c16 rows of ScalarType.h's table)
        return toComplexType(promoteTypes(toRealValueType(a), toRealValueType(b)))
    a_float, b_float = a in _FLOATING, b in _FLOATING
    if a_float and not b_float:
        return a
    if b_float and not a_float:
        return b
    if a_float and b_float:
        if {a, b} == {kHalf, kBFloat16}:
            return kFloat  # neither 16-bit format holds the other
        return a if _FLOAT_RANK[a] > _FLOAT_RANK[b] else b
    if {a, b} == {kByte, kChar}:
        return kShort
    return a if _INT_RANK[a] > _INT_RANK[b] else b


def canCast(from_: ScalarType, to: ScalarType) -> bool:
    """c10::canCast: no complex to non-complex, no float to integral, no non-bool to bool."""
    if isComplexType(from_) and not isComplexType(to):
        return False
    if isFloatingType(from_) and isIntegralType(to, includeBool=True):
        return False
    return not (from_ != kBool and to == kBool)
