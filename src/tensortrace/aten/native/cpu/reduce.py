"""The CPU reduction loops: binary_kernel_reduce and binary_kernel_reduce_vec.

Mirrors `aten/src/ATen/native/cpu/Reduce.h`. PyTorch walks the iterator's reduced dims with an
accumulator per output element (vectorized along the innermost dim). Here a reduction is one
NumPy call per block of the iteration (all of it, or one thread's chunk, see
aten/tensor_iterator_reduce.py): the reduced axes are those along which the output's stride is 0
(Note [A reduction's output has stride 0 along the reduced dims]), and the output array, indexed
at 0 along them, is the accumulator. No element is touched by Python.
"""

from __future__ import annotations

from collections.abc import Callable
from math import prod
from typing import Any

import numpy as np

from tensortrace.aten.fp_errors import IGNORE_ALL, NUMPY_ERROR_STATE
from tensortrace.aten.tensor_body import null_deref
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.aten.tensor_iterator_reduce import foreach_reduced_elt, parallel_reduce
from tensortrace.c10.device import kCPU
from tensortrace.trace import recorder, traced

SOURCE = "aten/src/ATen/native/cpu/Reduce.h"
# NumPy's error state's set and reset, read once (a method read on it is never specialized)
_set_error_state = NUMPY_ERROR_STATE.set
_reset_error_state = NUMPY_ERROR_STATE.reset

# reduce(acc, inp, axes): writes combine(acc, reduction of inp over axes) into acc (keepdims)
ReduceLoop = Callable[[np.ndarray, np.ndarray, tuple[int, ...]], None]


_ALL = slice(None)
_FIRST = slice(0, 1)
# a 1-d block whose output does not move: its reduced axes (its accumulator is out[_FIRST], the
# same view as accumulator(out, axes) makes, by one slice: half the cost of a tuple index)
_FLAT_AXES: tuple[int, ...] = (0,)


def reduced_axes(out: np.ndarray) -> tuple[int, ...]:
    """The axes along which the output array does not move: the ones it reduces."""
    return tuple([axis for axis, stride in enumerate(out.strides) if stride == 0])


def accumulator(out: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """The output array with each reduced axis cut to length 1: one slot per output element."""
    index: list[Any] = [_FIRST if axis in axes else _ALL for axis in range(out.ndim)]
    index.append(Ellipsis)  # the Ellipsis keeps a 0-dim result an array, not a scalar
    return out[tuple(index)]


def _block_loop(reduce: ReduceLoop) -> Callable[[np.ndarray, np.ndarray], None]:
    """The loop the iterator runs per block (a thread's chunk, or all of it)."""

    def loop(out: np.ndarray, inp: np.ndarray) -> None:
        strides = out.strides
        if len(strides) == 1 and strides[0] == 0:  # a full reduction, coalesced to one dim
            reduce(out[_FIRST], inp, _FLAT_AXES)
            return
        axes = reduced_axes(out)
        reduce(accumulator(out, axes), inp, axes)

    return loop


# Note [The identity fill while no trace records]
# binary_kernel_reduce_vec starts, as Reduce.h's does, with `iter.output_base().fill_(ident)`: an
# aten::fill_ call through the dispatcher, which a trace records (and torch.profiler shows under
# aten::sum). A kernel runs below autograd (the VariableType kernel that reached it excluded the
# autograd and ADInplaceOrView keys, or its tensors have none), so that call reaches the CPU
# fill_ kernel, whose whole effect on a CPU output is to write the identity (0, 1 or a bool,
# exact in every dtype) into each of its elements: ten Python calls (dispatch, fill_out,
# scalar_fill, checked_convert, the view), or a TensorIterator build for an output of several
# elements. While no trace records, a CPU reduction writes it through one NumPy view of the
# output instead: the same bytes in the same memory, nothing allocated. Traced (or on another
# device) the fill_ call runs as before.
@traced("kernel", "at::native::binary_kernel_reduce_vec", SOURCE, legacy="binary_kernel_reduce_vec")
def binary_kernel_reduce_vec(it: TensorIteratorBase, reduce: ReduceLoop, ident: Any) -> None:
    """Fill the output with the identity, then fold every input element into it."""
    out = it.operands_[0].tensor  # it.output_base(): Note [Direct reads on hot paths]
    if recorder.current is None and it.common_device_.type_ is kCPU:
        # Note [The identity fill while no trace records]
        (out.impl_.target_ or null_deref()).numpy_view().fill(ident)  # `[...] = ident`, sooner
    else:
        out.fill_(ident)
    if prod(it.shape_) == 0:  # it.numel()
        return
    # with np.errstate(all="ignore"): C++ reductions do not trap on overflow or 0/0 either
    token = _set_error_state(IGNORE_ALL)  # Note [The error state set directly]
    try:
        parallel_reduce(it, _block_loop(reduce))
    finally:
        _reset_error_state(token)


@traced("kernel", "at::native::binary_kernel_reduce", SOURCE, legacy="binary_kernel_reduce")
def binary_kernel_reduce(it: TensorIteratorBase, reduce: ReduceLoop) -> None:
    """A reduction whose accumulator is not the output's type (Welford, argmax's pair)."""
    if it.numel() == 0:
        return
    token = NUMPY_ERROR_STATE.set(IGNORE_ALL)  # with np.errstate(all="ignore")
    try:
        foreach_reduced_elt(it, _block_loop(reduce))
    finally:
        NUMPY_ERROR_STATE.reset(token)
