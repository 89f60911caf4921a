"""random_(from, to)'s bounds: checked against the dtype, then made the kernel's (range, base).

Mirrors `aten/src/ATen/native/DistributionTemplates.h` (`update_from`, `update_to`,
`random_from_to_impl` and its CHECK_OUT_OF_BOUNDS), whose kernels are those of
`aten/native/cpu/distribution_templates.py` (`cpu/DistributionTemplates.h`).
"""

from __future__ import annotations

import numpy as np

from tensortrace.aten.cpu_generator_impl import CPUGeneratorImpl
from tensortrace.aten.native.cpu.distribution_casts import _max_value, _scalar_roundtrip_int64
from tensortrace.aten.native.cpu.distribution_templates import (
    _BOOL,
    _INT64_MAX,
    _INT64_MIN,
    _U64,
    _UINT64_MASK,
    _digits,
    _floating_dtypes,
    _type_name,
    random_from_to_fill,
    random_full_64_bits_range_fill,
)
from tensortrace.c10.exception import TORCH_CHECK
from tensortrace.c10.scalar_type import TypeMeta, scalar_type_from_numpy


def update_from(dtype: np.dtype, from_: int) -> int:
    """Move `from` right until static_cast<scalar_t>(from) no longer rounds below it."""
    dtype = np.dtype(dtype)
    from_plus_1 = _scalar_roundtrip_int64(dtype, from_ + 1)
    if from_plus_1 < from_:
        n = max(abs(from_ + 1).bit_length() - 1, 0)  # while (from_ >>= 1) ++n;
        from_ = from_plus_1 + (1 << (n - _digits(dtype) + 1))
    return from_


def update_to(dtype: np.dtype, to: int) -> int:
    """Move `to` left until to - 1 cast to scalar_t stays below `to` (see update_from)."""
    dtype = np.dtype(dtype)
    to_minus_1 = _scalar_roundtrip_int64(dtype, to - 1)
    if to_minus_1 >= to:
        n = max(abs(to - 1).bit_length() - 1, 0)
        to = to_minus_1 - (1 << (n - _digits(dtype) + 1))
    return to


def random_from_to_impl(
    gen: CPUGeneratorImpl, out: np.ndarray, from_: int, to: int | None = None
) -> np.ndarray:
    """`Tensor.random_(from, to)` / `torch.randint(from, to)`: bounds -> (range, base) -> kernel.

    Mirrors native/DistributionTemplates.h random_from_to_impl (without its warnings):
    floating dtypes get `from`/`to` nudged by update_from/update_to; `to=None` means the
    dtype's largest value (2**digits for floats), and from=INT64_MIN with to=None the full
    64-bit range.
    """
    dtype = out.dtype
    from_ = int(from_)
    is_float = dtype in _floating_dtypes()
    if to is not None:
        to = int(to)
        TORCH_CHECK(
            from_ < to,
            "random_ expects 'from' to be less than 'to', but got from=",
            from_,
            " >= to=",
            to,
        )
        if is_float:
            from_, to = update_from(dtype, from_), update_to(dtype, to)
            TORCH_CHECK(
                from_ < to,
                "random_ expects 'from' casted to dtype to be less than 'to'"
                " casted to dtype, but got from=",
                from_,
                " >= to=",
                to,
            )
        _check_from_to_in_range(from_, to - 1, dtype)
        if out.size:
            random_from_to_fill(gen, out, from_, (to - from_) & _UINT64_MASK)
    elif from_ != _INT64_MIN:
        if is_float:
            to_inc = min(1 << _digits(dtype), _INT64_MAX)
            from_ = update_from(dtype, from_)
            TORCH_CHECK(
                from_ < to_inc,
                "random_ expects 'from' casted to dtype to be less than or"
                " equal to 'to_inc' casted to dtype, but got from=",
                from_,
                " > to_inc=",
                to_inc,
            )
        elif dtype == _BOOL:
            to_inc = 1
        else:
            TORCH_CHECK(
                dtype.kind in "iu",
                "random_from_to_impl handles only integral, floating-point and boolean types",
            )
            to_inc = int(np.iinfo(dtype).max)
        _check_from_to_in_range(from_, to_inc, dtype)
        if out.size:
            random_from_to_fill(gen, out, from_, (to_inc - from_ + 1) & _UINT64_MASK)
    elif out.size:
        random_full_64_bits_range_fill(gen, out)
    return out


def _check_from_to_in_range(from_: int, to_inc: int, dtype: np.dtype) -> None:
    if dtype in _floating_dtypes():
        lo, hi = -_max_value(dtype), _max_value(dtype)
    elif dtype == _BOOL:
        lo, hi = 0, 1
    elif dtype == _U64:
        lo, hi = 0, _INT64_MAX
    else:
        lo, hi = int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)
    # CHECK_OUT_OF_BOUNDS streams self.dtype(): the TypeMeta's C++ name ("unsigned char")
    name = _type_meta_name(dtype)
    TORCH_CHECK(lo <= from_ <= hi, "from is out of bounds for ", name)
    TORCH_CHECK(lo <= to_inc <= hi, "to - 1 is out of bounds for ", name)


def _type_meta_name(dtype: np.dtype) -> str:
    try:
        return TypeMeta.fromScalarType(scalar_type_from_numpy(dtype)).name
    except TypeError:  # uint16/32/64: no ScalarType here
        return _type_name(dtype)
