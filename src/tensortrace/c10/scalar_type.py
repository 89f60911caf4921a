"""ScalarType, TypeMeta and type promotion.

Mirrors `c10/core/ScalarType.h` (the enum with PyTorch's numbering, `promoteTypes`, the
predicates) and `c10/util/typeid.h` (TypeMeta: the itemsize and name of an element type). Each
ScalarType also knows the NumPy dtype its elements are stored as, since kernels run on NumPy.
bfloat16 is stored with `ml_dtypes.bfloat16` (the same 16 bits PyTorch uses), when installed.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum
from typing import Any

import numpy as np

from tensortrace.c10.frozen import Frozen


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

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TypeMeta):  # BFloat16's before its load is one too
            return NotImplemented
        return (self.scalar_type, self.itemsize, self.name, self.numpy) == (
            other.scalar_type,  # type: ignore[attr-defined]
            other.itemsize,  # type: ignore[attr-defined]
            other.name,  # type: ignore[attr-defined]
            other.numpy,  # type: ignore[attr-defined]
        )

    def __hash__(self) -> int:
        return hash((self.scalar_type, self.itemsize, self.name, self.numpy))

    @staticmethod
    def fromScalarType(scalar_type: ScalarType) -> TypeMeta:
        return _TYPE_METAS[scalar_type]

    def toScalarType(self) -> ScalarType:
        return self.scalar_type


class _BFloat16MetaBeforeLoad(TypeMeta):
    """BFloat16's TypeMeta until its `numpy` is first read (Note [ml_dtypes imported on the
    first bfloat16 read]): the read lands in __getattr__, which fills the slot and makes the
    object a plain TypeMeta. TypeMeta itself has no __getattr__: a class with one has its
    attribute reads take the slow path (no LOAD_ATTR specialization), on every op."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:  # only for a field with no value
        if name == "numpy":
            dt = _load_bfloat16() if self is _BFLOAT16_META else _BFLOAT16_META.numpy
            object.__setattr__(self, "numpy", dt)
            object.__setattr__(self, "__class__", TypeMeta)
            return dt
        raise AttributeError(f"'TypeMeta' object has no attribute {name!r}")


_BFloat16MetaBeforeLoad.__qualname__ = "TypeMeta"  # its repr, if made before the first read


# Note [ml_dtypes imported on the first bfloat16 read]
# bfloat16 has no NumPy dtype of its own: ml_dtypes provides the real 16-bit format, and
# importing it costs ~27M instructions, 5% of `import tensortrace`, for a dtype few programs
# use. So BFloat16's TypeMeta is made with its `numpy` slot empty, as a _BFloat16MetaBeforeLoad:
# the first read of it (a bfloat16 tensor's allocation, numpy_dtype, a repr, an ==) lands in
# its __getattr__, which imports ml_dtypes, fills the slot and makes it a plain TypeMeta; every
# later read is the plain slot read every other dtype's is. The tables keyed by NumPy dtypes
# (_FROM_NUMPY here, opmath's 16-bit floats) take the dtype then (when_bfloat16_loaded). A NumPy
# bfloat16 array can only come from ml_dtypes, so scalar_type_from_numpy loads it on a miss
# before it refuses.
_bfloat16_waiting: list[Callable[[np.dtype], None]] | None = []


def _load_bfloat16() -> np.dtype | None:
    global _bfloat16_waiting
    try:
        from ml_dtypes import bfloat16
    except ImportError:  # pragma: no cover - ml_dtypes is a dependency
        dt = None
    else:
        dt = np.dtype(bfloat16)
    object.__setattr__(_BFLOAT16_META, "numpy", dt)  # frozen: as its __init__ would
    waiting, _bfloat16_waiting = _bfloat16_waiting, None
    if dt is not None:
        for add in waiting or ():
            add(dt)
    return dt


def when_bfloat16_loaded(add: Callable[[np.dtype], None]) -> None:
    """Call `add` with NumPy's bfloat16 dtype once it is loaded (now, if it is)."""
    if _bfloat16_waiting is not None:
        _bfloat16_waiting.append(add)
    elif _BFLOAT16_META.numpy is not None:
        add(_BFLOAT16_META.numpy)


def _meta(st: ScalarType, name: str, np_type: type[Any] | None) -> TypeMeta:
    dt = np.dtype(np_type) if np_type is not None else None
    itemsize = dt.itemsize if dt is not None else (4 if st == ScalarType.ComplexHalf else 2)
    return TypeMeta(st, itemsize, name, dt)


def _bfloat16_meta() -> TypeMeta:
    """BFloat16's TypeMeta with its `numpy` slot left empty, filled on its first read."""
    meta = object.__new__(_BFloat16MetaBeforeLoad)
    object.__setattr__(meta, "scalar_type", ScalarType.BFloat16)
    object.__setattr__(meta, "itemsize", 2)
    object.__setattr__(meta, "name", "c10::BFloat16")
    return meta


_BFLOAT16_META = _bfloat16_meta()


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
    ScalarType.BFloat16: _BFLOAT16_META,
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
    m.numpy: st
    for st, m in _TYPE_METAS.items()
    if m is not _BFLOAT16_META and m.numpy is not None  # bfloat16's when it is loaded
}
when_bfloat16_loaded(lambda dt: _FROM_NUMPY.__setitem__(dt, ScalarType.BFloat16))


def scalar_type_from_numpy(dt: np.dtype) -> ScalarType:
    try:
        return _FROM_NUMPY[np.dtype(dt)]
    except KeyError:
        if _bfloat16_waiting is not None:  # an ml_dtypes array before any bfloat16 tensor
            _load_bfloat16()
            return scalar_type_from_numpy(dt)
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
