"""Parallel reductions over a TensorIterator: parallel_reduce and foreach_reduced_elt.

Mirrors `aten/src/ATen/native/TensorIteratorReduce.cpp`. A reduction with one output element
(`x.sum()`) over more than GRAIN_SIZE inputs takes the two-pass path: each thread folds its chunk
of the input into its own slot of a small buffer (`at::empty({num_threads})`, filled with the
identity by a copy_), and a second, serial reduction folds the buffer into the output. Otherwise
the threads split the output: each takes a range of one non-reduced dim.

A reduce loop here is `loop(out, inp)`: two arrays of one block's shape, where `out` has stride 0
along the dims it reduces (Note [A reduction's output has stride 0 along the reduced dims]).
"""

from __future__ import annotations

from collections.abc import Callable
from math import prod
from typing import TYPE_CHECKING

import numpy as np

from tensortrace.aten import functions as at
from tensortrace.aten.parallel import (
    GRAIN_SIZE,
    get_num_threads,
    get_thread_num,
    in_parallel_region,
    parallel_for,
)
from tensortrace.aten.tensor_iterator import TensorIterator, serial_for_each
from tensortrace.c10.device import DeviceType
from tensortrace.trace import recorder, traced

if TYPE_CHECKING:
    from tensortrace.aten.tensor_iterator import TensorIteratorBase

SOURCE = "aten/src/ATen/native/TensorIteratorReduce.cpp"

ReduceLoop = Callable[[np.ndarray, np.ndarray], None]


def _serial(numel: int) -> bool:
    """Too little work (the iterator's numel) to split, one thread, or already inside a
    parallel region."""
    return numel < GRAIN_SIZE or get_num_threads() == 1 or in_parallel_region()


# the iterator's _operand_array (a staticmethod), read once: CPython 3.11 specializes no read of
# a staticmethod through an instance
_operand_array = TensorIterator._operand_array


def parallel_reduce(it: TensorIteratorBase, loop: ReduceLoop) -> None:
    """TensorIteratorBase::parallel_reduce: one input, one output."""
    numel = prod(it.shape_)  # it.numel(), written out
    if numel == 0:
        return
    # _serial(numel), written out: every reduction asks (a small one answers at the first test)
    if numel < GRAIN_SIZE or get_num_threads() == 1 or in_parallel_region():
        # serial_for_each(loop, {0, numel}): it.operand_arrays() written out for its two operands
        out, inp = it.operands_
        shape = tuple(it.shape_[::-1])  # loop order (Note [Reversed by a slice])
        loop(_operand_array(out, shape, 0), _operand_array(inp, shape, 0))
    elif it.output(0).numel() == 1:  # use_two_pass_reduction
        two_pass_reduction(it, loop)
    else:
        parallel_dim_reduction(it, loop)


# Note [The two-pass reduction while no trace records]
# two_pass_reduction allocates a buffer of one slot per thread, views it and the output
# (unsqueeze, select), copies the identity into it and builds two more iterators: ~300 Python
# calls, half of a 4M-element sum's fixed cost. None of it outlives the call, so while no trace
# records, a CPU reduction that coalesced to one dim (a contiguous or evenly strided input: the
# common case) keeps the slots in a NumPy array and runs the same loop calls on views of it:
# each thread folds its chunk [begin, end) into its own slot, then the slots are folded into
# the output in one call, as final_reduce.for_each does. The chunks, their order and each
# NumPy call are those of the traced path, so the bits are the same; only the allocator's
# cumulative counts (memory_stats' allocation.all.allocated) grow by one less than while tracing.
@traced("native", "two_pass_reduction", SOURCE, "at::two_pass_reduction")
def two_pass_reduction(it: TensorIteratorBase, loop: ReduceLoop) -> None:
    if (
        recorder.current is None
        and len(it.shape_) == 1
        and it.dtype(0) == it.dtype(1)
        and it.common_device_.type_ == DeviceType.CPU  # the emulated CUDA's buffer stays
    ):
        _two_pass_reduction_flat(it, loop)  # Note [The two-pass reduction while no trace records]
        return
    max_threads = get_num_threads()
    dst = it.output(0)
    unsqueezed = dst.unsqueeze(0)
    buffer_shape = list(unsqueezed.sizes())
    buffer_shape[0] = max_threads
    buffer = at.empty(buffer_shape, dtype=dst.scalar_type(), device=dst.device())
    buffer.copy_(unsqueezed)  # every thread's slot starts at the identity the output holds

    buffer_stride = buffer.strides()[0] * buffer.element_size()
    buffer_0 = buffer.select(0, 0)  # buffer[0]
    first_reduce = TensorIterator.reduce_op(buffer_0, it.input(0))
    inp = first_reduce.operand_array(1)
    # "Bump output ptr so each thread has its own output slice"
    slots = [first_reduce.operand_array(0, buffer_stride * t) for t in range(max_threads)]

    def chunk(begin: int, end: int) -> None:
        serial_for_each(loop, (slots[get_thread_num()], inp), begin, end)

    parallel_for(0, first_reduce.numel(), GRAIN_SIZE, chunk)

    final_reduce = TensorIterator.reduce_op(unsqueezed, buffer)
    final_reduce.for_each(loop)


def _two_pass_reduction_flat(it: TensorIteratorBase, loop: ReduceLoop) -> None:
    """two_pass_reduction over a one-dim iteration, its buffer a NumPy array."""
    max_threads = get_num_threads()
    out, inp = it.operand_arrays()  # out has stride 0: every element is dst's one value
    slots = np.full(max_threads, out[0], out.dtype)  # the buffer: every slot the identity
    numel, itemsize = inp.shape[0], slots.itemsize
    # thread t's output: its slot, repeated along the input (first_reduce's bumped output)
    outputs = [
        np.ndarray((numel,), slots.dtype, slots, t * itemsize, (0,)) for t in range(max_threads)
    ]

    def chunk(begin: int, end: int) -> None:
        loop(outputs[get_thread_num()][begin:end], inp[begin:end])

    parallel_for(0, numel, GRAIN_SIZE, chunk)
    loop(out[:max_threads], slots)  # final_reduce.for_each(loop): one block, serial


def find_split_dim(it: TensorIteratorBase) -> int:
    """The outer-most dim that is not reduced and has at least one column per thread."""
    num_threads = get_num_threads()
    shape = it.shape()
    best_dim = it.ndim() - 1
    dim = best_dim
    while dim >= 0 and not it.is_dim_reduced(dim):
        if shape[dim] >= num_threads:
            return dim
        if shape[dim] > shape[best_dim]:
            best_dim = dim
        dim -= 1
    return best_dim


def round_columns(
    it: TensorIteratorBase, dim: int, multiple: int, begin: int, end: int
) -> tuple[int, int]:
    begin -= begin % multiple
    if end != it.shape()[dim]:  # only round the 'end' column down if it's not the final column
        end -= end % multiple
    return begin, end


def _narrowed(arrays: list[np.ndarray], dim: int, begin: int, end: int) -> list[np.ndarray]:
    """TensorIterator::narrow(dim, begin, end - begin) on loop-order arrays (dim is reversed)."""
    axis = arrays[0].ndim - 1 - dim
    index = (slice(None),) * axis + (slice(begin, end),)
    return [array[index] for array in arrays]


def parallel_dim_reduction(it: TensorIteratorBase, loop: ReduceLoop) -> None:
    dim = find_split_dim(it)
    cols = it.shape()[dim]
    element_size = it.element_size(1)
    # round columns to multiples of 128 bytes if adjacent columns are contiguous in memory
    should_round_columns = it.strides(1)[dim] == element_size
    arrays = it.operand_arrays()

    def chunk(begin: int, end: int) -> None:
        if should_round_columns:
            begin, end = round_columns(it, dim, 128 // element_size, begin, end)
        if begin == end:
            return
        loop(*_narrowed(arrays, dim, begin, end))  # sub_iter.for_each(loop): serial in here

    parallel_for(0, cols, 1, chunk, work_per_iteration=it.numel() // cols)


def foreach_reduced_elt(it: TensorIteratorBase, loop: ReduceLoop) -> None:
    """TensorIteratorBase::foreach_reduced_elt: whole reductions, one per output element.

    For loops whose accumulator is not the output (argmax's pair, Welford): a thread always
    reduces whole rows, so an output of one element is reduced by one thread."""
    if it.output(0).numel() == 0:
        return
    arrays = it.operand_arrays()
    if it.output(0).numel() == 1 or _serial(it.numel()):
        loop(*arrays)
        return
    dim = find_split_dim(it)

    def chunk(begin: int, end: int) -> None:
        if begin != end:
            loop(*_narrowed(arrays, dim, begin, end))

    parallel_for(0, it.shape()[dim], 1, chunk, work_per_iteration=it.numel() // it.shape()[dim])
