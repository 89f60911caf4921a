"""The CPU loops that run a kernel over a TensorIterator: cpu_kernel, cpu_kernel_vec, serial.

Mirrors `aten/src/ATen/native/cpu/Loops.h`. PyTorch's loops walk the iterator's dims with byte
strides and call a scalar or Vectorized lambda per element or per vector; here the whole walk is
one NumPy call over arrays that view each operand's storage with the iterator's shape and
strides (Note [TensorIterator's loop order]), so no element is touched by Python. A loop sees
one block of the iteration at a time: all of it, or one thread's chunk of a parallel_for.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tensortrace.aten.fp_errors import IGNORE_ALL, NUMPY_ERROR_STATE
from tensortrace.aten.opmath_type import _SIXTEEN_BIT_FLOATS, to_opmath
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/Loops.h"

# loop(out, *inputs): computes out[...] from the inputs, all arrays in the iterator's loop order
VectorizedLoop = Callable[..., None]


def store(out: np.ndarray, fn: Callable[..., np.ndarray], *inputs: np.ndarray | np.generic) -> None:
    """out = fn(*inputs), computed in opmath and written straight into `out`.

    A NumPy ufunc writes its result in place, in one pass over memory, as a C++ loop stores
    through the output pointer; `out[...] = fn(...)` would first fill a temporary as large as
    the output and then copy it. 16-bit floats are computed in float32 (a Vectorized<Half>
    loop loads into float) and rounded once on the store.
    """
    for a in inputs:  # to_opmath only if an input is a 16-bit float: most loads are as they are
        if a.dtype in _SIXTEEN_BIT_FLOATS:
            inputs = tuple(to_opmath(*inputs))
            break
    if isinstance(fn, np.ufunc):
        fn(*inputs, out=out, casting="unsafe")
    else:
        out[...] = fn(*inputs)


def _run(it: TensorIteratorBase, loop: VectorizedLoop) -> None:
    # with np.errstate(all="ignore"): C++ kernels do not trap on overflow or 0/0 either
    # (Note [The error state set directly])
    token = NUMPY_ERROR_STATE.set(IGNORE_ALL)
    try:
        it.for_each(loop)  # in parallel above GRAIN_SIZE elements, as cpu_kernel's for_each
    finally:
        NUMPY_ERROR_STATE.reset(token)
    it.cast_outputs()


@traced("kernel", "at::native::cpu_kernel_vec", SOURCE, legacy="cpu_kernel_vec")
def cpu_kernel_vec(it: TensorIteratorBase, loop: VectorizedLoop) -> None:
    """Run a loop with a Vectorized<scalar_t> path (here, a NumPy ufunc over whole arrays)."""
    _run(it, loop)


@traced("kernel", "at::native::cpu_kernel", SOURCE, legacy="cpu_kernel")
def cpu_kernel(it: TensorIteratorBase, loop: VectorizedLoop) -> None:
    _run(it, loop)


@traced("kernel", "at::native::cpu_serial_kernel", SOURCE, legacy="TH_TENSOR_APPLY")
def cpu_serial_kernel(it: TensorIteratorBase, fill: Callable[[int], np.ndarray]) -> None:
    """A nullary kernel whose values must come in loop order (a random generator's draws).

    `fill(n)` returns the n values in the order PyTorch's serial loop would produce them.
    """
    if it.numel() == 0:
        return
    out = it.operand_array(0)
    out[...] = fill(out.size).reshape(out.shape)
    it.cast_outputs()
