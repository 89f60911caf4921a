"""arange_kernel and linspace_kernel: the values, in the order PyTorch's loops compute them.

Mirrors `aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp`, as compiled into the x86-64
wheels (with fused multiply-add contraction, see distribution_templates.py):

* arange: element i is `start + step * i` in acc_type (double for float and double, float for
  half and bfloat16), cast to scalar_t; the contiguous fast path (vectorized_loop) makes two
  vectors per iteration, each `Vectorized<scalar_t>::arange(base, step)` = `base + k * step`
  from `base = start + step * i0` rounded to scalar_t; the leftover elements take the scalar
  path. arange_stub has no AVX512 kernel, so the vectors are AVX2's (8 floats, 4 doubles,
  16 halfs); and at::parallel_for gives each thread its own chunk above GRAIN_SIZE elements.
* linspace: `step = (end - start) / (steps - 1)`; the first half counts up from start, the
  second half down from end, so both ends are exact.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortrace.aten.native.cpu.fma import fma_float32, fma_float64
from tensortrace.aten.native.cpu.loops import cpu_serial_kernel
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.native.range_factories import arange_stub, linspace_stub
from tensortrace.aten.parallel import GRAIN_SIZE, chunks, get_num_threads
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.c10.scalar import Scalar, checked_convert
from tensortrace.c10.scalar_type import ScalarType, isComplexType, isFloatingType, numpy_dtype
from tensortrace.trace import traced

SOURCE = "aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp"


VECTOR_BYTES = 32  # arange_stub / linspace_stub have no AVX512 kernel: AVX2's 256-bit vectors


def parallel_chunks(n: int) -> list[tuple[int, int]]:
    """at::parallel_for(0, n, GRAIN_SIZE): the [begin, end) each thread's loop gets."""
    if n == 0:
        return [(0, 0)]
    return chunks(0, n, GRAIN_SIZE, get_num_threads())  # one chunk up to GRAIN_SIZE


def _real_convert(value: Scalar, st: ScalarType) -> int | float:
    """checked_convert to a real ScalarType: its result is never complex."""
    out = checked_convert(value, st)
    assert not isinstance(out, complex)
    return out


def _round(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    with np.errstate(over="ignore"):
        return values.astype(dtype)


def _arange_float_chunk(
    begin: int, end: int, start: float, step: float, dtype: np.dtype, acc: type[np.floating[Any]]
) -> np.ndarray:
    """One thread's vectorized_loop: 2 vectors per step from `base`, then a scalar tail."""
    fma = fma_float64 if acc is np.float64 else fma_float32
    vec = VECTOR_BYTES // dtype.itemsize
    n = end - begin
    n_vec = n // (2 * vec) * (2 * vec)
    out = np.empty(n, dtype)
    if n_vec:
        i0 = np.arange(begin, begin + n_vec, vec, dtype=acc)
        # base = start + step * idx (in acc_type, contracted to one fma), stored as scalar_t
        base = _round(fma(i0, acc(step), acc(start)), dtype).astype(acc)
        k = np.arange(vec, dtype=acc)
        # Vectorized<scalar_t>::arange(base, step): base + k * step, one fma per lane
        lanes = fma(np.broadcast_to(k, (len(i0), vec)), acc(step), base[:, None])
        out[:n_vec] = _round(lanes, dtype).reshape(-1)
    if n_vec < n:
        idx = np.arange(begin + n_vec, end, dtype=acc)
        out[n_vec:] = _round(fma(idx, acc(step), acc(start)), dtype)
    return out


@traced("kernel", "at::native::arange_kernel", SOURCE, legacy="THTensor_(arange)")
def arange_kernel(it: TensorIteratorBase, start: Any, size: int, step: Any) -> None:
    """Element i: `start + step * i` in acc_type; see the module docstring for the vectors."""
    st = it.dtype()
    dtype = numpy_dtype(st)

    def fill(n: int) -> np.ndarray:
        if not isFloatingType(st):
            xstart = checked_convert(start, ScalarType.Long)
            xstep = checked_convert(step, ScalarType.Long)
            return (xstart + xstep * np.arange(n, dtype=np.int64)).astype(dtype)
        acc = np.float64 if st in (ScalarType.Float, ScalarType.Double) else np.float32
        acc_st = ScalarType.Double if acc is np.float64 else ScalarType.Float
        xstart, xstep = _real_convert(start, acc_st), _real_convert(step, acc_st)
        return np.concatenate(
            [_arange_float_chunk(b, e, xstart, xstep, dtype, acc) for b, e in parallel_chunks(n)]
        )

    cpu_serial_kernel(it, fill)


def _reduced(values: np.ndarray | np.generic, dtype: np.dtype) -> np.ndarray:
    """A float result stored back into c10::Half / c10::BFloat16 (round to nearest even)."""
    return values.astype(np.float32).astype(dtype).astype(np.float32)


@traced("kernel", "at::native::linspace_kernel", SOURCE, legacy="THTensor_(linspace)")
def linspace_kernel(it: TensorIteratorBase, start: Any, end: Any, steps: int) -> None:
    """step = (end - start) / (steps - 1); the first half counts up from start, the rest down
    from end (a serial kernel: no vectors, for the precision of integer outputs)."""
    st = it.dtype()
    dtype = numpy_dtype(st)

    def fill(n: int) -> np.ndarray:
        idx = np.arange(n, dtype=np.int64)
        rev = steps - idx - 1
        halfway = steps // 2
        if isComplexType(st):  # c10::complex<T> arithmetic, step of scalar_t
            part = dtype.type(0).real.dtype
            s = dtype.type(checked_convert(start, st))
            e = dtype.type(checked_convert(end, st))
            step = (e - s) / dtype.type(steps - 1)
            up = s + step * idx.astype(part)
            down = e - step * rev.astype(part)
            return np.where(idx < halfway, up, down).astype(dtype)
        if st in (ScalarType.Float, ScalarType.Double):
            s = np.asarray(checked_convert(start, st), dtype)
            e = np.asarray(checked_convert(end, st), dtype)
            step = (e - s) / dtype.type(steps - 1)
            fma = fma_float64 if dtype == np.float64 else fma_float32
            up = fma(idx.astype(dtype), step, s)
            down = fma(-rev.astype(dtype), step, e)
            return np.where(idx < halfway, up, down).astype(dtype)
        if isFloatingType(st):
            # c10::Half / c10::BFloat16 arithmetic: every operator rounds back to scalar_t,
            # and an int64 operand is first converted to scalar_t
            s = _reduced(np.float32(_real_convert(start, st)), dtype)
            e = _reduced(np.float32(_real_convert(end, st)), dtype)
            step = _reduced(_reduced(e - s, dtype) / _reduced(np.float32(steps - 1), dtype), dtype)
            up = _reduced(
                s + _reduced(step * _reduced(idx.astype(np.float32), dtype), dtype), dtype
            )
            down = _reduced(
                e - _reduced(step * _reduced(rev.astype(np.float32), dtype), dtype), dtype
            )
            return np.where(idx < halfway, up, down).astype(dtype)
        s_i = _real_convert(start, st)
        e_i = _real_convert(end, st)
        step_d = (float(e_i) - float(s_i)) / (steps - 1)  # step_t is double for integers
        up = fma_float64(idx.astype(np.float64), step_d, float(s_i))
        down = fma_float64(-rev.astype(np.float64), step_d, float(e_i))
        return np.trunc(np.where(idx < halfway, up, down)).astype(dtype)

    cpu_serial_kernel(it, fill)


REGISTER_DISPATCH(arange_stub, arange_kernel)
REGISTER_DISPATCH(linspace_stub, linspace_kernel)
