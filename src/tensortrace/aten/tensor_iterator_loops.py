"""The iteration half of TensorIteratorBase: its accessors, the NumPy views, for_each.

Mirrors the inline accessors of `aten/src/ATen/TensorIterator.h` (ndim, numel, dtype, output...),
`TensorIteratorBase::for_each` / `serial_for_each` of `TensorIterator.cpp` and DimCounter's walk
over a range of the iteration (`TensorIteratorInternal.h`). TensorIteratorBase
(tensor_iterator.py) inherits these; see Note [TensorIterator's loop order] there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import prod
from typing import TYPE_CHECKING, Any

import numpy as np

from tensortrace.aten.parallel import GRAIN_SIZE, get_num_threads, parallel_for
from tensortrace.aten.tensor_body import Tensor
from tensortrace.c10.device import Device
from tensortrace.c10.exception import TORCH_INTERNAL_ASSERT
from tensortrace.c10.scalar_type import ScalarType, elementSize
from tensortrace.trace import recorder

if TYPE_CHECKING:
    from tensortrace.aten.tensor_iterator_operands import OperandInfo

U = ScalarType.Undefined
# every kernel's views are made by these: Note [NumPy's names read once] in c10/tensor_impl.py
_ndarray = np.ndarray
_frombuffer = np.frombuffer

# loop(*arrays): one array per operand (outputs first), all of one block's shape, in loop order
Loop = Callable[..., None]


def range_blocks(shape: Sequence[int], begin: int, end: int) -> list[tuple[slice, ...]]:
    """The linear range [begin, end) of a row-major iteration `shape`, as rectangular blocks.

    This is the walk serial_for_each makes over a chunk (DimCounter): a partial first row, whole
    rows, a partial last row, recursively. Every index keeps its dim (slices, not ints), so a
    block of any operand has the same ndim as the operand."""
    if not shape:
        return [()] if begin < end else []
    if len(shape) == 1:
        return [(slice(begin, end),)]
    rest = shape[1:]
    inner = 1
    for size in rest:
        inner *= size
    first, first_offset = divmod(begin, inner)
    last, last_offset = divmod(end, inner)
    if first == last:
        return [
            (slice(first, first + 1), *block)
            for block in range_blocks(rest, first_offset, last_offset)
        ]
    blocks: list[tuple[slice, ...]] = []
    if first_offset:
        blocks += [
            (slice(first, first + 1), *block) for block in range_blocks(rest, first_offset, inner)
        ]
        first += 1
    if last > first:
        blocks.append((slice(first, last), *(slice(None),) * len(rest)))
    if last_offset:
        blocks += [(slice(last, last + 1), *block) for block in range_blocks(rest, 0, last_offset)]
    return blocks


def serial_for_each(loop: Loop, arrays: Sequence[np.ndarray], begin: int, end: int) -> None:
    """at::internal::serial_for_each: `loop` over the elements [begin, end) of the iteration."""
    for block in range_blocks(arrays[0].shape, begin, end):
        loop(*(array[block] for array in arrays))


class TensorIteratorLoops:
    """TensorIteratorBase's accessors and loops (the fields are set by its __init__)."""

    operands_: list[OperandInfo]
    num_outputs_: int
    shape_: list[int]
    common_dtype_: ScalarType
    common_device_: Device

    # ---- accessors ---------------------------------------------------------------------------
    def ndim(self) -> int:
        return len(self.shape_)

    def ntensors(self) -> int:
        return len(self.operands_)

    def noutputs(self) -> int:
        return self.num_outputs_

    def ninputs(self) -> int:
        return self.ntensors() - self.num_outputs_

    def shape(self) -> tuple[int, ...]:
        return tuple(self.shape_)

    def numel(self) -> int:
        return prod(self.shape_)

    def tensor(self, i: int) -> Tensor:
        return self.operands_[i].tensor

    def output(self, i: int = 0) -> Tensor:
        return self.operands_[i].tensor

    def input(self, i: int = 0) -> Tensor:
        return self.operands_[self.num_outputs_ + i].tensor

    def dtype(self, i: int = 0) -> ScalarType:
        return self.operands_[i].current_dtype

    def input_dtype(self, i: int = 0) -> ScalarType:
        return self.operands_[self.num_outputs_ + i].current_dtype

    def common_dtype(self) -> ScalarType:
        common_dtype = self.common_dtype_
        if common_dtype == U:  # Note [TORCH_CHECK tests first]
            TORCH_INTERNAL_ASSERT(False, "Queried for invalid common dtype!")
        return common_dtype

    def device_type(self) -> Any:
        return self.common_device_.type_

    def strides(self, i: int) -> list[int]:
        return self.operands_[i].stride_bytes

    def maybe_get_output(self, i: int = 0) -> Tensor:
        return Tensor()

    # ---- reductions (TensorIteratorBase::num_reduce_dims, output_base) ------------------------
    def output_base(self, i: int = 0) -> Tensor:
        return self.operands_[i].tensor

    def num_reduce_dims(self) -> int:
        """The dims along which output 0 does not move (its stride is 0)."""
        return sum(1 for dim in range(self.ndim()) if self.operands_[0].stride_bytes[dim] == 0)

    # ---- NumPy views in loop order (Note [TensorIterator's loop order]) ----------------------
    # Note [Reversed by a slice]
    # A NumPy view takes its shape and strides in loop order, the iterator's lists reversed.
    # `tuple(x[::-1])` builds that tuple from a reversed copy, at half the cost of
    # `tuple(reversed(x))`: reversed() looks up and calls the list's __reversed__, and tuple()
    # then looks up and calls that iterator's __length_hint__.
    def operand_array(self, i: int, byte_offset: int = 0) -> np.ndarray:
        """Operand i as an array in loop order; `byte_offset` bumps its base pointer."""
        return self._operand_array(self.operands_[i], tuple(self.shape_[::-1]), byte_offset)

    @staticmethod
    def _operand_array(op: OperandInfo, shape: tuple[int, ...], byte_offset: int) -> np.ndarray:
        """An operand as an array of `shape`, the iterator's shape in loop order."""
        impl = op.tensor.impl_.target_  # Note [Direct reads on hot paths]
        if impl is None:
            raise RuntimeError("intrusive_ptr is null")  # what unsafeGetTensorImpl() raises
        dtype = impl.data_type_.numpy  # op.current_dtype: a cast temporary has its own impl
        if 0 in shape:
            return np.empty(shape, dtype)
        storage_impl = impl.storage_.storage_impl_.target_  # unsafeGetStorageImpl(), read directly
        if storage_impl is None:
            raise RuntimeError("intrusive_ptr is null")
        storage = storage_impl.data_ptr_.ctx  # bytes_view(), read directly
        if recorder.current is not None:  # as bytes_view does: Note [What a step may have
            recorder.current.written.add(storage_impl)  # changed] in _trace_values.py
        if storage is None:
            storage = np.empty(0, np.uint8)
        itemsize = impl.data_type_.itemsize
        offset = impl.storage_offset_ * itemsize + byte_offset
        stride_bytes = op.stride_bytes
        if len(shape) == 1 and stride_bytes[0] == itemsize:
            # the contiguous fast path (one flat dimension, fast_set_up's): frombuffer makes
            # the same writable view as np.ndarray(buffer=...) at about a third of the cost
            return _frombuffer(storage, dtype, shape[0], offset)
        # np.ndarray(shape, dtype, buffer, offset, strides) by position: NumPy parses keywords
        # with its slow generic parser (timeit: 1.0 us a view by keyword, 0.5 us by position),
        # as TensorImpl.numpy_view does
        # the strides in loop order, reversed by a slice: Note [Reversed by a slice]
        return _ndarray(shape, dtype, storage, offset, tuple(stride_bytes[::-1]))

    def operand_arrays(self) -> list[np.ndarray]:
        shape = tuple(self.shape_[::-1])  # loop order, for every operand
        arrays = []  # a loop, not a comprehension: no frame of its own
        for op in self.operands_:
            arrays.append(self._operand_array(op, shape, 0))
        return arrays

    def element_size(self, arg: int) -> int:
        return elementSize(self.dtype(arg))

    def is_dim_reduced(self, dim: int) -> bool:
        """An output does not move along `dim`, and the input has more than one element there."""
        return any(
            op.is_output and op.stride_bytes[dim] == 0 and self.shape_[dim] > 1
            for op in self.operands_
        )

    # ---- running a loop (TensorIteratorBase::for_each, serial_for_each) -----------------------
    def for_each(self, loop: Loop, grain_size: int = GRAIN_SIZE) -> None:
        """Run `loop` over every element: serially below grain_size, else with parallel_for.

        `loop(*arrays)` gets one array per operand, all of the same shape (a block of the
        iteration space); it must only run NumPy (Note [What runs on the worker threads])."""
        numel = prod(self.shape_)  # self.numel(), written out
        if numel == 0:
            return
        arrays = self.operand_arrays()
        if numel < grain_size or get_num_threads() == 1:
            loop(*arrays)  # serial_for_each(loop, {0, numel}): the whole range in one block
            return
        parallel_for(
            0, numel, grain_size, lambda begin, end: serial_for_each(loop, arrays, begin, end)
        )
