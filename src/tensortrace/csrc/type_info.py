"""torch.finfo and torch.iinfo: the limits of the floating and integer dtypes.

Mirrors `torch/csrc/TypeInfo.cpp`: finfo(type=default dtype) has bits, eps, max, min, tiny,
smallest_normal, resolution (10 ** -digits10) and dtype (the name, a str); iinfo(type) has
bits, max, min and dtype. Their reprs stream the values as C++ doubles (6 significant digits),
and two of them are equal when they describe the same dtype.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tensortrace.c10.default_dtype import get_default_dtype
from tensortrace.c10.scalar_type import (
    ScalarType,
    elementSize,
    isFloatingType,
    isIntegralType,
    toRealValueType,
)
from tensortrace.csrc.dtype import get_dtype, to_scalar_type
from tensortrace.csrc.python_arg_parser import PythonArgParser

_finfo_parser = PythonArgParser.lazy(["finfo(ScalarType type)", "finfo()"])
_iinfo_parser = PythonArgParser.lazy(["iinfo(ScalarType type)"])

# (mantissa digits including the implicit bit, max, smallest normal) of each floating dtype
_FLOAT_LIMITS: dict[ScalarType, tuple[int, float, float]] = {
    ScalarType.Half: (11, 65504.0, 2.0**-14),
    ScalarType.BFloat16: (8, float(np.float32(3.3895313892515355e38)), 2.0**-126),
    ScalarType.Float: (24, float(np.finfo(np.float32).max), 2.0**-126),
    ScalarType.Double: (53, float(np.finfo(np.float64).max), 2.0**-1022),
}


def _g(value: float) -> str:
    return f"{value:g}"


def _type_name(scalar_type: ScalarType) -> str:
    return repr(get_dtype(scalar_type)).removeprefix("torch.")


class finfo:  # torch.finfo
    __slots__ = (
        "_type",
        "bits",
        "eps",
        "max",
        "min",
        "tiny",
        "smallest_normal",
        "resolution",
        "dtype",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        r = _finfo_parser.parse(args, kwargs)
        scalar_type = get_default_dtype() if r.idx == 1 else to_scalar_type(r.args[0])
        # a complex type reports the limits of its parts (THPFInfo_pynew: toRealValueType)
        scalar_type = toRealValueType(scalar_type)
        if not isFloatingType(scalar_type):
            raise TypeError(
                "torch.finfo() requires a floating point input type. Use "
                "torch.iinfo to handle 'torch.finfo'"
            )
        digits, max_, normal = _FLOAT_LIMITS[scalar_type]
        self._type = scalar_type
        self.bits = elementSize(scalar_type) * 8
        self.eps = 2.0 ** (1 - digits)  # std::numeric_limits<T>::epsilon()
        self.max, self.min = max_, -max_
        self.tiny = self.smallest_normal = normal
        # std::numeric_limits<T>::digits10: floor((digits - 1) * log10(2))
        self.resolution = 10.0 ** -math.floor((digits - 1) * math.log10(2))
        self.dtype = _type_name(scalar_type)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, finfo) and other._type == self._type

    def __hash__(self) -> int:
        return hash(("finfo", self._type))

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={_g(self.resolution)}, min={_g(self.min)}, "
            f"max={_g(self.max)}, eps={_g(self.eps)}, "
            f"smallest_normal={_g(self.smallest_normal)}, tiny={_g(self.tiny)}, "
            f"dtype={self.dtype})"
        )

    __str__ = __repr__


class iinfo:  # torch.iinfo
    __slots__ = ("_type", "bits", "max", "min", "dtype")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        r = _iinfo_parser.parse(args, kwargs)
        scalar_type = to_scalar_type(r.args[0])
        if scalar_type == ScalarType.Bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if not isIntegralType(scalar_type, False):
            raise TypeError(
                "torch.iinfo() requires an integer input type. Use torch.finfo to "
                "handle 'torch.iinfo'"
            )
        info = np.iinfo(
            np.dtype(f"{'u' if scalar_type == ScalarType.Byte else 'i'}{elementSize(scalar_type)}")
        )
        self._type = scalar_type
        self.bits = elementSize(scalar_type) * 8
        self.max, self.min = int(info.max), int(info.min)
        self.dtype = _type_name(scalar_type)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, iinfo) and other._type == self._type

    def __hash__(self) -> int:
        return hash(("iinfo", self._type))

    def __repr__(self) -> str:
        return f"iinfo(min={_g(float(self.min))}, max={_g(float(self.max))}, dtype={self.dtype})"

    __str__ = __repr__
