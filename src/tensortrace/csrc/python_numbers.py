"""The number checks of argument parsing: THPUtils_checkLong, THPUtils_checkDouble, checkScalar.

Mirrors `torch/csrc/utils/python_numbers.h` (and python_arg_parser.cpp's scalar check). Split out
of python_arg_parser.py, which uses them for every argument it matches.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from tensortrace.csrc.python_variable import TensorBase

# is_numpy_scalar (torch/csrc/utils/tensor_numpy.cpp): np.bool_ is no numbers.Number
_NUMPY_SCALARS = (np.integer, np.bool_, np.floating, np.complexfloating)
# float, int and bool by exact type before the numbers ABCs (an ABC isinstance is ~1 us)
_PLAIN_REALS = frozenset({float, int, bool})


def _is_int(obj: Any) -> bool:
    """THPUtils_checkLong: an int that is not a bool (NumPy integers count too)."""
    if type(obj) is int:  # the common case, by exact type: no ABC check (a bool's type is bool)
        return True
    if isinstance(obj, bool):
        return False
    if isinstance(obj, numbers.Integral):
        return True
    return (
        isinstance(obj, TensorBase)
        and obj.dim() == 0
        and not obj.is_floating_point()
        and obj.dtype.__str__() != "torch.bool"
    )


def _is_double(obj: Any) -> bool:
    """THPUtils_checkDouble: any real number (bools are ints in Python, so they pass), and
    any NumPy scalar (is_numpy_scalar: np.bool_ and the complex ones too)."""
    if type(obj) in _PLAIN_REALS or isinstance(obj, (numbers.Real, _NUMPY_SCALARS)):
        return True
    return isinstance(obj, TensorBase) and obj.dim() == 0


def _is_scalar(obj: Any) -> bool:
    """THPUtils_checkScalar: a Python number or a NumPy scalar (is_numpy_scalar: an integer,
    bool, floating or complex one), or a 0-dim tensor that does not require grad."""
    if type(obj) in _PLAIN_REALS or isinstance(obj, (numbers.Number, bool, _NUMPY_SCALARS)):
        return True
    return isinstance(obj, TensorBase) and obj.dim() == 0 and not obj.requires_grad


def _first_bad_int(seq: Sequence[Any]) -> int:
    """Index of the first element that is not an int, or -1."""
    for i, item in enumerate(seq):
        if not _is_int(item):
            return i
    return -1
