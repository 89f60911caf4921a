"""torch.dtype, torch.layout and torch.memory_format: the Python objects for c10 enums.

Mirrors `torch/csrc/Dtype.cpp`, `Layout.cpp`, `MemoryFormat.cpp` and `torch/csrc/utils/
tensor_dtypes.cpp` (the names and aliases: torch.float32 is torch.float, torch.int64 is
torch.long...). Each dtype wraps a ScalarType; the binding converts between the two.
"""

from __future__ import annotations

from typing import Any

from tensortrace.c10.scalar_type import (
    ScalarType,
    elementSize,
    isComplexType,
    isFloatingType,
    isSignedType,
    toComplexType,
    toRealValueType,
)


class dtype:  # torch.dtype
    __slots__ = ("scalar_type", "name")

    def __init__(self, scalar_type: ScalarType, name: str) -> None:
        self.scalar_type = scalar_type
        self.name = name

    @property
    def is_floating_point(self) -> bool:
        return isFloatingType(self.scalar_type)

    @property
    def is_complex(self) -> bool:
        return isComplexType(self.scalar_type)

    @property
    def is_signed(self) -> bool:
        return isSignedType(self.scalar_type)

    @property
    def itemsize(self) -> int:
        return elementSize(self.scalar_type)

    def to_complex(self) -> dtype:
        """The complex dtype whose parts have this dtype (Dtype.cpp's THPDtype_to_complex)."""
        return get_dtype(toComplexType(self.scalar_type))

    def to_real(self) -> dtype:
        return get_dtype(toRealValueType(self.scalar_type))

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __getattr__(self, attr: str) -> Any:
        # only for names not found: the C type's tp_name, "torch.dtype", is in the message
        raise AttributeError(f"'torch.dtype' object has no attribute '{attr}'")

    def _trace_summary(self) -> str:
        return repr(self)

    def __reduce__(self) -> str:
        return self.name


# (ScalarType, primary name, aliases), as tensor_dtypes.cpp lists them
_DTYPES: list[tuple[ScalarType, str, tuple[str, ...]]] = [
    (ScalarType.Byte, "uint8", ()),
    (ScalarType.Char, "int8", ()),
    (ScalarType.Short, "int16", ("short",)),
    (ScalarType.Int, "int32", ("int",)),
    (ScalarType.Long, "int64", ("long",)),
    (ScalarType.Half, "float16", ("half",)),
    (ScalarType.Float, "float32", ("float",)),
    (ScalarType.Double, "float64", ("double",)),
    (ScalarType.ComplexHalf, "complex32", ("chalf",)),
    (ScalarType.ComplexFloat, "complex64", ("cfloat",)),
    (ScalarType.ComplexDouble, "complex128", ("cdouble",)),
    (ScalarType.Bool, "bool", ()),
    (ScalarType.BFloat16, "bfloat16", ()),
]

DTYPES: dict[str, dtype] = {}
_BY_SCALAR_TYPE: dict[ScalarType, dtype] = {}
for _st, _name, _aliases in _DTYPES:
    _obj = dtype(_st, _name)
    _BY_SCALAR_TYPE[_st] = _obj
    for _n in (_name, *_aliases):
        DTYPES[_n] = _obj


def get_dtype(scalar_type: ScalarType) -> dtype:
    return _BY_SCALAR_TYPE[scalar_type]


def to_scalar_type(obj: Any) -> ScalarType:
    """A dtype argument: torch.float32, or the Python types float, int and bool."""
    if isinstance(obj, dtype):
        return obj.scalar_type
    if obj is float:
        return ScalarType.Double
    if obj is int:
        return ScalarType.Long
    if obj is bool:
        return ScalarType.Bool
    if obj is complex:
        return ScalarType.ComplexDouble
    raise TypeError(f"expected a torch.dtype, got {type(obj).__name__}")


class layout:  # torch.layout
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


strided = layout("strided")


class memory_format:  # torch.memory_format
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
