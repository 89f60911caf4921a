"""Tensor.__getitem__: THPVariable_getitem and applySelect.

Mirrors `torch/csrc/autograd/python_variable_indexing.cpp` and `aten/src/ATen/TensorIndexing.h`.
An integer index is the seed's case: applySelect checks the bound (with PyTorch's IndexError)
and calls `select(0, index)`, a view.
"""

from __future__ import annotations

import numbers
from typing import Any

from tensortrace.aten.tensor_body import Tensor as AtTensor
from tensortrace.c10.exception import TORCH_CHECK_INDEX
from tensortrace.csrc.python_variable import TensorBase, THPVariable_Wrap, handle_th_errors
from tensortrace.trace import traced

SOURCE = "torch/csrc/autograd/python_variable_indexing.cpp"


@traced("python", "at::indexing::applySelect", "aten/src/ATen/TensorIndexing.h",
        legacy="applySelect")
def applySelect(self: AtTensor, dim: int, index: int, real_dim: int = 0) -> AtTensor:  # noqa: N802
    sizes = self.sizes()
    TORCH_CHECK_INDEX(not (index == 0 and dim == 0 and len(sizes) == 0),
                      "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                      "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    size = sizes[dim]
    TORCH_CHECK_INDEX(size > -1 - index and size > index, "index ", index,
                      " is out of bounds for dimension ", real_dim, " with size ", size)
    # a negative index is not normalized here: aten::select handles it
    return self.select(dim, index)


def _is_int_index(index: Any) -> bool:
    return isinstance(index, numbers.Integral) and not isinstance(index, bool)


@handle_th_errors
@traced("python", "THPVariable_getitem", SOURCE, legacy="THPVariable_getitem")
def THPVariable_getitem(self: TensorBase, index: Any) -> TensorBase:  # noqa: N802
    self_ = self.cdata
    if _is_int_index(index):
        return THPVariable_Wrap(applySelect(self_, 0, int(index)))
    from tensortrace.csrc.python_advanced_indexing import getitem_slow_path

    return getitem_slow_path(self, index)
