"""The general indexing path of THPVariable_getitem (slices, None, Ellipsis, tensors).

Mirrors `applySlicing` and the advanced-indexing half of
`torch/csrc/autograd/python_variable_indexing.cpp`.
"""

from __future__ import annotations

from typing import Any

from tensortrace.csrc.python_variable import TensorBase


def _invalid(index: Any) -> IndexError:
    return IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                      f"Variables are valid indices (got {type(index).__name__})")


def getitem_slow_path(self: TensorBase, index: Any) -> TensorBase:
    if isinstance(index, (float, str, complex)) or index is True or index is False:
        raise _invalid(index)
    raise NotImplementedError(
        f"tensortrace: indexing with {type(index).__name__} is not implemented yet; "
        "integer indices are")
