"""Tensor.__getitem__ / __setitem__: THPVariable_getitem, THPVariable_setitem and applySlicing.

Mirrors `torch/csrc/autograd/python_variable_indexing.cpp`: it parses the Python index and calls
ATen's at::indexing functions (aten/tensor_indexing.py, TensorIndexing.h). Basic indices are
views: an int is applySelect (`select`), a slice applySlice (`slice`), None an `unsqueeze`, `...`
an `alias` when nothing else happens. Tensor and sequence indices ("advanced" indexing) are
collected on the way and handed to `aten::index` (or `aten::index_put_` when assigning) with the
sliced tensor. Assigning to a basic index copies into the view (copy_to: `copy_`, or `fill_` for
a 0-dim value).
"""

from __future__ import annotations

import numbers
import operator
import sys
from typing import Any

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.native.tensor_shape import _type_string
from tensortrace.aten.tensor_body import Tensor as AtTensor
from tensortrace.aten.tensor_indexing import (
    applySelect,
    applySlice,
    boolToIndexingTensor,
    copy_to,
    dispatch_index,
    dispatch_index_put_,
    recordTensorIndex,
    slicePrefix1sSize,
)
from tensortrace.c10.exception import TORCH_CHECK_INDEX, TORCH_CHECK_TYPE, TORCH_CHECK_VALUE
from tensortrace.c10.scalar_type import ScalarType, isIntegralType
from tensortrace.csrc.python_advanced_indexing import scalarToTensor, sequenceToVariable
from tensortrace.csrc.python_variable import TensorBase, THPVariable_Wrap, handle_th_errors
from tensortrace.trace import traced

SOURCE = "torch/csrc/autograd/python_variable_indexing.cpp"
INDEXING_H = "aten/src/ATen/TensorIndexing.h"

# what __PySlice_Unpack puts in for a missing stop: PY_SSIZE_T_MAX
PY_SSIZE_T_MAX = sys.maxsize


class Ellipsis_:  # a marker, like at::indexing::Ellipsis
    pass


def _is_int_index(index: Any) -> bool:
    """THPUtils_checkLong: a Python or NumPy integer, not a bool."""
    # a plain int first: isinstance against the numbers ABC costs two Python-level calls
    return type(index) is int or (
        isinstance(index, numbers.Integral) and not isinstance(index, bool)
    )


# ---- the basic index kinds (TensorIndexing.h impl::) --------------------------------------------
def unpack_long(value: int) -> int:
    """THPUtils_unpackLong: an index must fit in int64_t."""
    if not -(1 << 63) <= value < (1 << 63):
        raise ValueError("Overflow when unpacking long long")
    return value


def unpack_slice(s: slice) -> tuple[int, int, int]:
    """__PySlice_Unpack: (start, stop, step) with Python's defaults and errors."""

    def as_index(v: Any) -> int:
        try:
            return operator.index(v)
        except TypeError:
            raise TypeError(
                "slice indices must be integers or None or have an __index__ method"
            ) from None

    step = 1 if s.step is None else as_index(s.step)
    TORCH_CHECK_VALUE(step != 0, "slice step cannot be zero")
    start = (0 if step > 0 else PY_SSIZE_T_MAX) if s.start is None else as_index(s.start)
    stop = (
        (PY_SSIZE_T_MAX if step > 0 else -PY_SSIZE_T_MAX - 1)
        if s.stop is None
        else (as_index(s.stop))
    )
    return start, stop, step


# ---- applySlicing --------------------------------------------------------------------------------
def count_specified_dimensions(index: tuple[Any, ...]) -> int:
    """The dims the index consumes: a mask consumes its dim(), None/.../bools none."""
    count = 0
    for obj in index:
        if isinstance(obj, TensorBase):
            if obj.cdata.scalar_type() in (ScalarType.Byte, ScalarType.Bool):
                count += obj.cdata.dim()
            else:
                count += 1
        elif obj is not None and obj is not Ellipsis and obj is not True and obj is not False:
            count += 1
    return count


def invalid_index(obj: Any) -> IndexError:
    return IndexError(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte "
        f"Variables are valid indices (got {type(obj).__name__})"
    )


@traced("python", "at::indexing::impl::applySlicing", INDEXING_H, legacy="applySlicing")
def applySlicing(
    self: AtTensor,
    index: tuple[Any, ...],
    out_indices: list[AtTensor | None],
    disable_slice_optimization: bool,
    specified_dims: int,
) -> AtTensor:
    TORCH_CHECK_INDEX(
        specified_dims <= self.dim(), "too many indices for tensor of dimension ", self.dim()
    )
    result = self
    dim = 0
    for real_dim, obj in enumerate(index):
        # handleDimInMultiDimIndexing: what each kind of index does to the result so far
        if _is_int_index(obj):
            result = applySelect(result, dim, int(obj), real_dim)
        elif isinstance(obj, slice):
            start, stop, step = unpack_slice(obj)
            result = applySlice(result, dim, start, stop, step, disable_slice_optimization)
            dim += 1
        elif obj is Ellipsis:
            dim += self.dim() - specified_dims
        elif obj is None:
            result = result.unsqueeze(dim)
            dim += 1
        elif isinstance(obj, bool):
            result = result.unsqueeze(dim)
            dim = recordTensorIndex(boolToIndexingTensor(result, obj), out_indices, dim)
        elif isinstance(obj, TensorBase):
            tensor = obj.cdata
            scalar_type = tensor.scalar_type()
            if tensor.dim() == 0 and isIntegralType(scalar_type, True):
                if scalar_type not in (ScalarType.Byte, ScalarType.Bool):
                    result = applySelect(result, dim, int(tensor.item()), real_dim)
                else:
                    result = result.unsqueeze(dim)
                    dim = recordTensorIndex(
                        boolToIndexingTensor(result, bool(tensor.item())), out_indices, dim
                    )
            else:
                dim = recordTensorIndex(tensor, out_indices, dim)
        elif isinstance(obj, (list, tuple, range, str, np.ndarray)):  # PySequence_Check
            dim = recordTensorIndex(sequenceToVariable(self, obj), out_indices, dim)
        else:
            try:
                value = operator.index(obj)
            except TypeError:
                raise invalid_index(obj) from None
            result = applySelect(result, dim, unpack_long(value), real_dim)
    return result


def treatSequenceAsTuple(index: Any) -> bool:
    """NumPy's heuristic: a short list holding slices, sequences, tensors, None, ... is a tuple."""
    import warnings

    if isinstance(index, tuple):
        return True
    if isinstance(index, TensorBase) or not isinstance(index, (list, range, str)):
        return False
    if len(index) >= 32:
        return False
    for obj in index:
        if (
            isinstance(obj, (TensorBase, list, tuple, range, str, slice))
            or obj is None
            or obj is Ellipsis
        ):
            warnings.warn(
                "Using a non-tuple sequence for multidimensional indexing is "
                "deprecated and will be changed in pytorch 2.9; use x[tuple(seq)] "
                "instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor "
                "index, x[torch.tensor(seq)], which will result either in an error or "
                "a different result",
                UserWarning,
                stacklevel=4,
            )
            return True
    return False


def wrapTuple(index: Any) -> tuple[Any, ...]:
    return tuple(index) if treatSequenceAsTuple(index) else (index,)


# ---- __getitem__ ---------------------------------------------------------------------------------
@handle_th_errors
@traced("python", "THPVariable_getitem", SOURCE, legacy="THPVariable_getitem")
def THPVariable_getitem(self: TensorBase, index: Any) -> TensorBase:
    self_ = self.cdata
    # the simple cases (TensorIndexing.h get_item with one index)
    if index is None:
        return THPVariable_Wrap(self_.unsqueeze(0))
    if index is Ellipsis:
        return THPVariable_Wrap(self_.alias())
    if _is_int_index(index):
        return THPVariable_Wrap(applySelect(self_, 0, unpack_long(int(index))))
    if isinstance(index, slice):
        start, stop, step = unpack_slice(index)
        return THPVariable_Wrap(applySlice(self_, 0, start, stop, step, True))
    if index is True or index is False:
        result = self_.unsqueeze(0)
        return THPVariable_Wrap(dispatch_index(result, [boolToIndexingTensor(result, index)]))
    holder = wrapTuple(index)
    variable_indices: list[AtTensor | None] = []
    specified_dims = count_specified_dimensions(holder)
    sliced = applySlicing(self_, holder, variable_indices, False, specified_dims)
    if not variable_indices:
        if sliced.is_same(self_):
            sliced = sliced.alias()  # x[...] and x[:, :] still return a new tensor object
        return THPVariable_Wrap(sliced)
    # indexing by tensors ("advanced" indexing)
    return THPVariable_Wrap(dispatch_index(sliced, variable_indices))


# ---- __setitem__ ---------------------------------------------------------------------------------
def _options_to_string(self: AtTensor) -> str:
    return _type_string(self)


@traced("python", "valueToTensor", SOURCE)
def valueToTensor(self: AtTensor, value: Any) -> AtTensor:
    """The value to assign, as a tensor: itself, or a 0-dim tensor of self's dtype."""
    if isinstance(value, TensorBase):
        return value.cdata
    TORCH_CHECK_TYPE(
        isinstance(value, (numbers.Number, bool)),
        "can't assign a ",
        type(value).__name__,
        " to a ",
        _options_to_string(self),
    )
    return at.lift_fresh(scalarToTensor(value, self))


@handle_th_errors
@traced("python", "THPVariable_setitem", SOURCE, legacy="THPVariable_setitem")
def THPVariable_setitem(self: TensorBase, index: Any, py_value: Any) -> None:
    self_ = self.cdata
    value = valueToTensor(self_, py_value)
    # the simple cases (set_item with one index)
    if index is False:
        return  # nothing is selected
    if index is Ellipsis:
        copy_to(self_, value)
        return
    if index is None or index is True:
        copy_to(self_.unsqueeze(0), value)
        return
    if _is_int_index(index):
        copy_to(applySelect(self_, 0, unpack_long(int(index))), value)
        return
    if isinstance(index, slice):
        start, stop, step = unpack_slice(index)
        copy_to(applySlice(self_, 0, start, stop, step, False), value)
        return
    holder = wrapTuple(index)
    variable_indices: list[AtTensor | None] = []
    specified_dims = count_specified_dimensions(holder)
    sliced = applySlicing(self_, holder, variable_indices, False, specified_dims)
    if not variable_indices:
        copy_to(sliced, value)
        return
    value_sizes = tuple(value.sizes())
    sliced_value_sizes = slicePrefix1sSize(value_sizes)
    values_sliced = (
        value if list(value_sizes) == sliced_value_sizes else value.view(sliced_value_sizes)
    )
    dispatch_index_put_(sliced, variable_indices, values_sliced)


def THPVariable_delitem(self: TensorBase, index: Any) -> None:
    raise TypeError("Tensor does not support deleting items")
