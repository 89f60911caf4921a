"""copy_kernel: elementwise copy with conversion between any two dtypes.

Mirrors `aten/src/ATen/native/cpu/CopyKernel.cpp`: static_cast from the source dtype to the
destination dtype (float to int truncates toward zero; nonzero to bool is true).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tensortrace.aten.native.copy import copy_stub
from tensortrace.aten.native.cpu.loops import cpu_kernel_vec
from tensortrace.aten.native.dispatch_stub import REGISTER_DISPATCH
from tensortrace.aten.tensor_iterator import TensorIteratorBase
from tensortrace.trace import traced


def _copy_loop(out: np.ndarray, src: np.ndarray) -> None:
    if src.dtype.kind == "c" and out.dtype.kind != "c":
        # static_cast<bool>(complex) is "nonzero"; to a real type it keeps the real part
        # (copy_ has warned), without NumPy's own ComplexWarning
        src = src != 0 if out.dtype.kind == "b" else src.real
    np.copyto(out, src, casting="unsafe")


def _conj_copy_loop(out: np.ndarray, src: np.ndarray) -> None:
    _copy_loop(out, np.conj(src))


def _neg_copy_loop(out: np.ndarray, src: np.ndarray) -> None:
    _copy_loop(out, np.negative(src))


def _conj_neg_copy_loop(out: np.ndarray, src: np.ndarray) -> None:
    _copy_loop(out, np.negative(np.conj(src)))


def math_bit_copy_loop(it: TensorIteratorBase) -> Callable[[np.ndarray, np.ndarray], None]:
    """copy_impl's requires_conj / requires_neg: the bits of source and destination differ
    (Note [The conj bit]), so the copy conjugates or negates on the way."""
    dst, src = it.tensor(0), it.tensor(1)
    conj = dst.is_conj() != src.is_conj()
    neg = dst.is_neg() != src.is_neg()
    if conj and neg:
        return _conj_neg_copy_loop
    if conj:
        return _conj_copy_loop
    return _neg_copy_loop if neg else _copy_loop


@traced("kernel", "at::native::copy_kernel", "aten/src/ATen/native/cpu/CopyKernel.cpp")
def copy_kernel(it: TensorIteratorBase, non_blocking: bool) -> None:
    cpu_kernel_vec(it, math_bit_copy_loop(it))


REGISTER_DISPATCH(copy_stub, copy_kernel)
