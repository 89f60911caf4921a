"""The CPU reduction loops: binary_kernel_reduce and binary_kernel_reduce_vec.

Mirrors `aten/src/ATen/native/cpu/Reduce.h`. PyTorch walks the iterator's reduced dims with an
accumulator per output element (vectorized along the innermost dim). Here the whole reduction is
one NumPy call over the iterator's operand arrays: the reduced axes are those along which the
output's stride is 0 (Note [A reduction's output has stride 0 along the reduced dims]), and the
output array, indexed at 0 along them, is the accumulator. No element is touched by Python.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/Reduce.h"

# reduce(acc, inp, axes): writes combine(acc, reduction of inp over axes) into acc (keepdims)
ReduceLoop = Callable[[np.ndarray, np.ndarray, tuple[int, ...]], None]


def reduced_axes(it: TensorIteratorBase) -> tuple[int, ...]:
    """The NumPy axes (of operand_array's reversed order) along which output 0 has stride 0."""
    strides = it.strides(0)
    ndim = it.ndim()
    return tuple(ndim - 1 - dim for dim in range(ndim) if strides[dim] == 0)


def accumulator(out: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """The output array with each reduced axis cut to length 1: one slot per output element."""
    index = tuple(slice(0, 1) if axis in axes else slice(None) for axis in range(out.ndim))
    return out[(*index, Ellipsis)]  # the Ellipsis keeps a 0-dim result an array, not a scalar


def _run(it: TensorIteratorBase, reduce: ReduceLoop) -> None:
    if it.numel() == 0:
        return
    axes = reduced_axes(it)
    out = it.operand_array(0)
    inp = it.operand_array(it.noutputs())
    with np.errstate(all="ignore"):  # C++ reductions do not trap on overflow or 0/0 either
        reduce(accumulator(out, axes), inp, axes)


@traced("kernel", "at::native::binary_kernel_reduce_vec", SOURCE,
        legacy="binary_kernel_reduce_vec")
def binary_kernel_reduce_vec(it: TensorIteratorBase, reduce: ReduceLoop, ident: Any) -> None:
    """Fill the output with the identity, then fold every input element into it."""
    it.output_base().fill_(ident)
    _run(it, reduce)


@traced("kernel", "at::native::binary_kernel_reduce", SOURCE, legacy="binary_kernel_reduce")
def binary_kernel_reduce(it: TensorIteratorBase, reduce: ReduceLoop) -> None:
    """A reduction whose accumulator is not the output's type (Welford, argmax's pair)."""
    _run(it, reduce)
